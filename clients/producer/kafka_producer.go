package producer

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/clients/serialization"
)

// Producer is what KafkaProducer offers, for code that wants to substitute another.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.Producer.
type Producer[K, V any] interface {
	Send(record ProducerRecord[K, V], callback Callback) (*FutureRecordMetadata, error)
	Flush()
	PartitionsFor(topic string) ([]common.PartitionInfo, error)
	Metrics() []*metrics.KafkaMetric
	Close(timeout time.Duration) error
}

// ProducerOptions carries what a Java client would name by class in its configuration and a Go
// program passes as values, plus the logger and clock.
type ProducerOptions[K, V any] struct {
	// Partitioner replaces the DefaultPartitioner (partitioner.class).
	Partitioner Partitioner
	// Interceptors are the interceptor.classes.
	Interceptors []ProducerInterceptor[K, V]
	// MetricsReporters are the metric.reporters.
	MetricsReporters []metrics.MetricsReporter
	// Log receives the producer's log lines under Kafka's logger names; nil writes WARN and
	// above to stderr.
	Log *logrus.Entry
	// Time is the clock (nil: the system clock).
	Time common.Time
}

// producerClientIDSequence numbers producers without a client.id (producer-1, producer-2, ...),
// process-wide as Kafka's static PRODUCER_CLIENT_ID_SEQUENCE does.
var producerClientIDSequence atomic.Int32

// KafkaProducer publishes records to Kafka: Send serializes a record, picks its partition,
// appends it to the RecordAccumulator and returns at once with a future; the Sender goroutine
// batches, sends and completes records in the background. It is safe for concurrent use by many
// goroutines.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.KafkaProducer.
type KafkaProducer[K, V any] struct {
	clientID         string
	config           *ProducerConfig
	partitioner      Partitioner
	maxRequestSize   int
	totalMemorySize  int64
	metadata         *clients.Metadata
	accumulator      *RecordAccumulator
	sender           *Sender
	metrics          *metrics.Metrics
	errors           *metrics.Sensor
	time             common.Time
	keySerializer    serialization.Serializer[K]
	valueSerializer  serialization.Serializer[V]
	configureKey     bool
	configureValue   bool
	maxBlockTimeMs   int64
	requestTimeoutMs int32
	interceptors     *ProducerInterceptors[K, V]
	log              *logrus.Entry
	closed           atomic.Bool
	closeOnce        sync.Once
}

// NewKafkaProducer builds a producer from props (Kafka's producer configuration). A nil
// serializer is loaded from key.serializer / value.serializer (Kafka's built-in classes);
// given serializers take precedence. A bad value fails with Kafka's *config.ConfigException;
// other failures with "Failed to construct kafka producer: <cause>".
//
// Kafka 0.10.2: the KafkaProducer constructors.
func NewKafkaProducer[K, V any](props map[string]string, keySerializer serialization.Serializer[K], valueSerializer serialization.Serializer[V]) (*KafkaProducer[K, V], error) {
	return NewKafkaProducerWith(props, keySerializer, valueSerializer, ProducerOptions[K, V]{})
}

// NewKafkaProducerWith is NewKafkaProducer with options.
func NewKafkaProducerWith[K, V any](props map[string]string, keySerializer serialization.Serializer[K], valueSerializer serialization.Serializer[V],
	opts ProducerOptions[K, V]) (*KafkaProducer[K, V], error) {
	given := make(map[string]string, len(props)+3)
	for k, v := range props {
		given[k] = v
	}
	// As ProducerConfig.addSerializerToConfig: serializers and a partitioner given as values
	// satisfy the class keys.
	if keySerializer != nil {
		given[KeySerializerClassConfig] = fmt.Sprintf("%T", keySerializer)
	}
	if valueSerializer != nil {
		given[ValueSerializerClassConfig] = fmt.Sprintf("%T", valueSerializer)
	}
	if opts.Partitioner != nil {
		given[PartitionerClassConfig] = goPartitionerClass
	}
	cfg, err := NewProducerConfig(given)
	if err != nil {
		return nil, err
	}
	p, err := newKafkaProducer(cfg, keySerializer, valueSerializer, opts)
	if err != nil {
		return nil, fmt.Errorf("Failed to construct kafka producer: %w", err)
	}
	return p, nil
}

func newKafkaProducer[K, V any](cfg *ProducerConfig, ks serialization.Serializer[K], vs serialization.Serializer[V], opts ProducerOptions[K, V]) (*KafkaProducer[K, V], error) {
	log := opts.Log
	if log == nil {
		l := logrus.New()
		l.SetOutput(os.Stderr)
		l.SetLevel(logrus.WarnLevel)
		log = logrus.NewEntry(l)
	}
	t := opts.Time
	if t == nil {
		t = common.SystemTime{}
	}
	p := &KafkaProducer[K, V]{config: cfg, time: t}
	p.clientID = cfg.ClientID
	if p.clientID == "" {
		p.clientID = fmt.Sprintf("producer-%d", producerClientIDSequence.Add(1))
	}
	p.log = log.WithField("logger", "org.apache.kafka.clients.producer.KafkaProducer")
	p.log.Trace("Starting the Kafka producer")
	cfg.logAll(p.log.WithField("logger", "org.apache.kafka.clients.producer.ProducerConfig"))

	if ks == nil {
		if err := checkSerializerClass(KeySerializerClassConfig, cfg.KeySerializer); err != nil {
			return nil, err
		}
		s, ok := serialization.ByName[K](cfg.KeySerializer)
		if !ok {
			return nil, fmt.Errorf("%w: Can't use %s for keys of type %T", serialization.ErrSerialization, cfg.KeySerializer, *new(K))
		}
		ks, p.configureKey = s, true
	}
	if vs == nil {
		if err := checkSerializerClass(ValueSerializerClassConfig, cfg.ValueSerializer); err != nil {
			return nil, err
		}
		s, ok := serialization.ByName[V](cfg.ValueSerializer)
		if !ok {
			return nil, fmt.Errorf("%w: Can't use %s for values of type %T", serialization.ErrSerialization, cfg.ValueSerializer, *new(V))
		}
		vs, p.configureValue = s, true
	}
	p.keySerializer, p.valueSerializer = ks, vs
	if p.configureKey {
		p.keySerializer.Configure(cfg.Originals, true)
	}
	if p.configureValue {
		p.valueSerializer.Configure(cfg.Originals, false)
	}
	compression, err := cfg.compression()
	if err != nil {
		return nil, err
	}
	addresses, err := clients.ParseAndValidateAddresses(cfg.BootstrapServers)
	if err != nil {
		return nil, err
	}

	mc := metrics.NewMetricConfig()
	mc.Samples = int(cfg.MetricsNumSamples)
	mc.TimeWindowMs = cfg.MetricsSampleWindowMs
	mc.Tags = map[string]string{"client-id": p.clientID}
	p.metrics = metrics.NewMetrics(mc, opts.MetricsReporters, t, log)
	p.partitioner = opts.Partitioner
	if p.partitioner == nil {
		p.partitioner = &DefaultPartitioner{}
	}
	if len(opts.Interceptors) > 0 {
		p.interceptors = NewProducerInterceptors(opts.Interceptors, log)
	}
	p.metadata = clients.NewMetadata(cfg.RetryBackoffMs, cfg.MetadataMaxAgeMs, true, log)
	p.maxRequestSize = int(cfg.MaxRequestSize)
	p.totalMemorySize = cfg.BufferMemory
	p.maxBlockTimeMs = cfg.maxBlockTimeMs(p.log)
	p.requestTimeoutMs = cfg.requestTimeoutMs(p.log)
	p.accumulator = NewRecordAccumulator(int(cfg.BatchSize), cfg.BufferMemory, compression, cfg.LingerMs, cfg.RetryBackoffMs, p.metrics, t, log)
	p.metadata.Update(common.BootstrapCluster(addresses), nil, t.Milliseconds())
	sel := network.NewSelector(network.SelectorConfig{ConnectionsMaxIdleMs: cfg.ConnectionsMaxIdleMs, Metrics: p.metrics,
		MetricGrpPrefix: "producer", MetricTags: map[string]string{"client-id": p.clientID}, Time: t, Log: log})
	client := clients.NewNetworkClient(sel, p.metadata, clients.NetworkClientConfig{
		ClientID: p.clientID, MaxInFlightRequestsPerConnection: int(cfg.MaxInFlightRequestsPerConnection),
		ReconnectBackoffMs: cfg.ReconnectBackoffMs, SocketSendBuffer: int(cfg.SendBufferBytes), SocketReceiveBuffer: int(cfg.ReceiveBufferBytes),
		RequestTimeoutMs: int64(p.requestTimeoutMs), DiscoverBrokerVersions: true, Time: t, Log: log})
	p.sender = NewSender(client, p.metadata, p.accumulator, cfg.MaxInFlightRequestsPerConnection == 1, int(cfg.MaxRequestSize),
		cfg.acks(), cfg.Retries, p.metrics, t, p.requestTimeoutMs, log.WithField("thread", "kafka-producer-network-thread | "+p.clientID))
	p.sender.Start()
	p.errors = p.metrics.Sensor("errors")
	p.log.Debug("Kafka producer started")
	return p, nil
}

// ClientID is client.id, or the producer-N name given when it is empty.
func (p *KafkaProducer[K, V]) ClientID() string { return p.clientID }

// Send queues a record and returns its future at once (blocking only while metadata for the
// topic is fetched or buffer memory is short, up to max.block.ms). The callback, if any, runs
// when the record is acknowledged or fails.
//
// Two kinds of failure, as in Kafka: a Kafka error (no metadata in time, a record over
// max.request.size or buffer.memory, a topic not authorized, no memory in time) fails the
// returned future and the callback, and the error is nil; anything else (the producer is
// closed, a serializer failed, a partition out of range, a bad timestamp) is returned as the
// error, with no future and no callback.
//
// Kafka 0.10.2: KafkaProducer.send and doSend.
func (p *KafkaProducer[K, V]) Send(rec ProducerRecord[K, V], callback Callback) (*FutureRecordMetadata, error) {
	if p.interceptors != nil {
		rec = p.interceptors.OnSend(rec)
	}
	var tp *common.TopicPartition
	fut, err := p.doSend(rec, callback, &tp)
	if err == nil {
		return fut, nil
	}
	if p.interceptors != nil {
		p.interceptors.OnSendError(rec, tp, err)
	}
	if !errors.Is(err, ErrProducerClosed) && !errors.Is(err, clients.ErrMetadataClosed) {
		_ = p.errors.Record()
	}
	var ke *protocol.Error
	if errors.As(err, &ke) { // an ApiException: reported through the future and the callback
		p.log.Debugf("Exception occurred during message send: %v", err)
		if callback != nil {
			callback(nil, err)
		}
		t := common.TopicPartition{Topic: rec.Topic, Partition: UnknownPartition}
		if tp != nil {
			t = *tp
		}
		return failedFuture(t, err), nil
	}
	return nil, err
}

func (p *KafkaProducer[K, V]) doSend(rec ProducerRecord[K, V], callback Callback, tpOut **common.TopicPartition) (*FutureRecordMetadata, error) {
	if p.closed.Load() {
		return nil, ErrProducerClosed
	}
	if err := rec.validate(); err != nil {
		return nil, err
	}
	cluster, waited, err := p.waitOnMetadata(rec.Topic, rec.Partition, p.maxBlockTimeMs)
	if err != nil {
		return nil, err
	}
	remaining := max(0, p.maxBlockTimeMs-waited)
	key, err := p.keySerializer.Serialize(rec.Topic, rec.Key)
	if err != nil {
		return nil, fmt.Errorf("Can't serialize key of record to topic %s: %w", rec.Topic, err)
	}
	value, err := p.valueSerializer.Serialize(rec.Topic, rec.Value)
	if err != nil {
		return nil, fmt.Errorf("Can't serialize value of record to topic %s: %w", rec.Topic, err)
	}
	partition := p.partition(rec, key, value, cluster)
	tp := common.TopicPartition{Topic: rec.Topic, Partition: partition}
	*tpOut = &tp
	if err := p.ensureValidRecordSize(record.LogOverhead + record.RecordSize(record.MagicValueV1, key, value)); err != nil {
		return nil, err
	}
	timestamp := p.time.Milliseconds()
	if rec.Timestamp != nil {
		timestamp = *rec.Timestamp
	}
	p.log.Tracef("Sending record %s to topic %s partition %d", rec, rec.Topic, partition)
	cb := callback
	if p.interceptors != nil {
		cb = p.interceptorCallback(callback, tp)
	}
	result, err := p.accumulator.Append(tp, timestamp, key, value, cb, remaining)
	if err != nil {
		return nil, err
	}
	if result.BatchIsFull || result.NewBatchCreated {
		p.log.Tracef("Waking up the sender since topic %s partition %d is either full or getting a new batch", rec.Topic, partition)
		p.sender.Wakeup()
	}
	return result.Future, nil
}

// interceptorCallback tells the interceptors, then calls the user's callback.
//
// Kafka 0.10.2: KafkaProducer.InterceptorCallback.
func (p *KafkaProducer[K, V]) interceptorCallback(user Callback, tp common.TopicPartition) Callback {
	return func(md *RecordMetadata, err error) {
		if md == nil {
			p.interceptors.OnAcknowledgement(&RecordMetadata{Topic: tp.Topic, Partition: tp.Partition, Offset: -1,
				Timestamp: record.NoTimestamp, Checksum: -1, SerializedKeySize: -1, SerializedValueSize: -1}, err)
		} else {
			p.interceptors.OnAcknowledgement(md, err)
		}
		if user != nil {
			user(md, err)
		}
	}
}

// waitOnMetadata makes sure the topic (and the record's partition, if any) is in the metadata,
// requesting updates for up to maxWaitMs, and returns the cluster and how long it waited.
//
// Kafka 0.10.2: KafkaProducer.waitOnMetadata.
func (p *KafkaProducer[K, V]) waitOnMetadata(topic string, partition *int32, maxWaitMs int64) (*common.Cluster, int64, error) {
	p.metadata.Add(topic)
	cluster := p.metadata.Fetch()
	count, ok := cluster.PartitionCountForTopic(topic)
	if ok && (partition == nil || int(*partition) < count) {
		return cluster, 0, nil
	}
	begin := p.time.Milliseconds()
	remaining := maxWaitMs
	var elapsed int64
	for {
		p.log.Tracef("Requesting metadata update for topic %s.", topic)
		version := p.metadata.RequestUpdate()
		p.sender.Wakeup()
		if err := p.metadata.AwaitUpdate(version, remaining); err != nil {
			if errors.Is(err, clients.ErrMetadataClosed) {
				return nil, 0, err
			}
			return nil, 0, protocol.Errorf(protocol.ErrRequestTimedOut, "Failed to update metadata after %d ms.", maxWaitMs)
		}
		cluster = p.metadata.Fetch()
		elapsed = p.time.Milliseconds() - begin
		if elapsed >= maxWaitMs {
			return nil, 0, protocol.Errorf(protocol.ErrRequestTimedOut, "Failed to update metadata after %d ms.", maxWaitMs)
		}
		if cluster.IsUnauthorized(topic) {
			return nil, 0, protocol.Errorf(protocol.ErrTopicAuthorizationFailed, "Not authorized to access topics: [%s]", topic)
		}
		remaining = maxWaitMs - elapsed
		if count, ok = cluster.PartitionCountForTopic(topic); ok {
			break
		}
	}
	if partition != nil && int(*partition) >= count {
		return nil, 0, fmt.Errorf("Invalid partition given with record: %d is not in the range [0...%d).", *partition, count)
	}
	return cluster, elapsed, nil
}

// ensureValidRecordSize refuses a record above max.request.size or buffer.memory.
//
// Kafka 0.10.2: KafkaProducer.ensureValidRecordSize (RecordTooLargeException).
func (p *KafkaProducer[K, V]) ensureValidRecordSize(size int) error {
	if size > p.maxRequestSize {
		return protocol.Errorf(protocol.ErrMessageTooLarge, "The message is %d bytes when serialized which is larger than the maximum request size you have configured with the %s configuration.",
			size, MaxRequestSizeConfig)
	}
	if int64(size) > p.totalMemorySize {
		return protocol.Errorf(protocol.ErrMessageTooLarge, "The message is %d bytes when serialized which is larger than the total memory buffer you have configured with the %s configuration.",
			size, BufferMemoryConfig)
	}
	return nil
}

func (p *KafkaProducer[K, V]) partition(rec ProducerRecord[K, V], key, value []byte, cluster *common.Cluster) int32 {
	if rec.Partition != nil {
		return *rec.Partition
	}
	return p.partitioner.Partition(rec.Topic, rec.Key, key, rec.Value, value, cluster)
}

// Flush makes every record sent so far sendable at once and waits until each is acknowledged
// or failed.
//
// Kafka 0.10.2: KafkaProducer.flush.
func (p *KafkaProducer[K, V]) Flush() {
	p.log.Trace("Flushing accumulated records in producer.")
	p.accumulator.BeginFlush()
	p.sender.Wakeup()
	p.accumulator.AwaitFlushCompletion()
}

// PartitionsFor returns the partitions of topic, fetching metadata for up to max.block.ms.
//
// Kafka 0.10.2: KafkaProducer.partitionsFor.
func (p *KafkaProducer[K, V]) PartitionsFor(topic string) ([]common.PartitionInfo, error) {
	cluster, _, err := p.waitOnMetadata(topic, nil, p.maxBlockTimeMs)
	if err != nil {
		return nil, err
	}
	return cluster.PartitionsForTopic(topic), nil
}

// Metrics returns the producer's metrics, sorted by group, name and tags.
func (p *KafkaProducer[K, V]) Metrics() []*metrics.KafkaMetric { return p.metrics.Metrics() }

// Close stops accepting records and waits up to timeout for those queued to be sent; records
// still queued after that fail with "Producer is closed forcefully.". Close(0) fails them at
// once. Calling Close again is harmless. Called with a timeout from a callback (which runs on
// the producer's network goroutine, the one Close waits for), it waits the timeout, then forces
// the close and returns (Kafka detects its network thread and uses a timeout of 0 at once).
//
// Kafka 0.10.2: KafkaProducer.close(timeout, unit).
func (p *KafkaProducer[K, V]) Close(timeout time.Duration) error {
	if timeout < 0 {
		return fmt.Errorf("%w: The timeout cannot be negative.", ErrIllegalArgument)
	}
	p.log.Infof("Closing the Kafka producer with timeoutMillis = %d ms.", timeout.Milliseconds())
	p.closed.Store(true)
	fromCallback := p.accumulator.inCallback.Load()
	if timeout > 0 {
		p.sender.InitiateClose()
		t := time.NewTimer(timeout)
		select {
		case <-p.sender.Done():
		case <-t.C:
		}
		t.Stop()
	}
	select {
	case <-p.sender.Done():
	default:
		p.log.Infof("Proceeding to force close the producer since pending requests could not be completed within timeout %d ms.", timeout.Milliseconds())
		p.sender.ForceClose()
		if !fromCallback || !p.accumulator.inCallback.Load() {
			<-p.sender.Done()
		}
	}
	p.closeOnce.Do(func() {
		if p.interceptors != nil {
			p.interceptors.Close()
		}
		p.metrics.Close()
		p.keySerializer.Close()
		p.valueSerializer.Close()
		p.partitioner.Close()
		p.log.Debug("The Kafka producer has closed.")
	})
	return nil
}
