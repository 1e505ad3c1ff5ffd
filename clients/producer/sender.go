package producer

import (
	"math"
	"strconv"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

// produceRequestVersion is the Produce version this producer sends: v2, whose record sets are
// message format v1 (magic 1, with timestamps), lowered by NetworkClient to what a broker
// supports.
const produceRequestVersion = 2

// Sender is the producer's network goroutine ("kafka-producer-network-thread | <client.id>"):
// it loops over run, draining ready batches from the RecordAccumulator into one ProduceRequest
// per leader, and completing batches from the responses (retrying retriable errors up to
// retries times after retry.backoff.ms, refreshing metadata on errors that say it is stale).
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.internals.Sender.
type Sender struct {
	client                clients.KafkaClient
	accumulator           *RecordAccumulator
	metadata              *clients.Metadata
	guaranteeMessageOrder bool
	maxRequestSize        int
	acks                  int16
	retries               int32
	time                  common.Time
	requestTimeoutMs      int32
	log                   *logrus.Entry
	sensors               *senderMetrics

	running    atomic.Bool
	forceClose atomic.Bool
	done       chan struct{}
}

// NewSender wires a Sender; Start runs it.
func NewSender(client clients.KafkaClient, metadata *clients.Metadata, accumulator *RecordAccumulator, guaranteeMessageOrder bool,
	maxRequestSize int, acks int16, retries int32, m *metrics.Metrics, t common.Time, requestTimeoutMs int32, log *logrus.Entry) *Sender {
	s := &Sender{client: client, accumulator: accumulator, metadata: metadata, guaranteeMessageOrder: guaranteeMessageOrder,
		maxRequestSize: maxRequestSize, acks: acks, retries: retries, time: t, requestTimeoutMs: requestTimeoutMs,
		log: log.WithField("logger", "org.apache.kafka.clients.producer.internals.Sender"), done: make(chan struct{})}
	s.running.Store(true)
	s.sensors = newSenderMetrics(m, client, metadata, t)
	return s
}

// Start runs the Sender on its own goroutine.
func (s *Sender) Start() { go s.run() }

// Done is closed when the Sender's goroutine has finished.
func (s *Sender) Done() <-chan struct{} { return s.done }

// run is the goroutine: run once per loop until closed, then go on until nothing is left to send
// (unless forced), fail what is left when forced, and close the network client.
//
// Kafka 0.10.2: Sender.run().
func (s *Sender) run() {
	defer close(s.done)
	s.log.Debug("Starting Kafka producer I/O thread.")
	for s.running.Load() {
		s.safeRunOnce()
	}
	s.log.Debug("Beginning shutdown of Kafka producer I/O thread, sending remaining records.")
	for !s.forceClose.Load() && (s.accumulator.HasUnsent() || s.client.InFlightRequestCount() > 0) {
		s.safeRunOnce()
	}
	if s.forceClose.Load() {
		s.accumulator.AbortIncompleteBatches()
	}
	s.client.Close()
	s.metadata.Close()
	s.log.Debug("Shutdown of Kafka producer I/O thread has completed.")
}

func (s *Sender) safeRunOnce() {
	defer func() {
		if p := recover(); p != nil {
			s.log.Errorf("Uncaught error in kafka producer I/O thread: %v", p)
		}
	}()
	s.runOnce(s.time.Milliseconds())
}

// runOnce is one iteration: find ready leaders, connect to the rest, drain, expire, send, poll.
//
// Kafka 0.10.2: Sender.run(long now).
func (s *Sender) runOnce(nowMs int64) {
	cluster := s.metadata.Fetch()
	result := s.accumulator.Ready(cluster, nowMs)
	if len(result.UnknownLeaderTopics) > 0 {
		for t := range result.UnknownLeaderTopics {
			s.metadata.Add(t)
		}
		s.metadata.RequestUpdate()
	}
	notReadyTimeout := int64(math.MaxInt64)
	readyNodes := result.ReadyNodes[:0]
	for _, n := range result.ReadyNodes {
		if s.client.Ready(n, nowMs) {
			readyNodes = append(readyNodes, n)
		} else {
			notReadyTimeout = min(notReadyTimeout, s.client.ConnectionDelay(n, nowMs))
		}
	}
	batches := s.accumulator.Drain(cluster, readyNodes, s.maxRequestSize, nowMs)
	if s.guaranteeMessageOrder {
		for _, list := range batches {
			for _, b := range list {
				s.accumulator.MutePartition(b.topicPartition)
			}
		}
	}
	expired := s.accumulator.AbortExpiredBatches(s.requestTimeoutMs, nowMs)
	for _, b := range expired {
		s.sensors.recordErrors(b.topicPartition.Topic, b.recordCount)
	}
	s.sensors.updateProduceRequestMetrics(batches)
	pollTimeout := min(result.NextReadyCheckDelayMs, notReadyTimeout)
	if len(readyNodes) > 0 {
		s.log.Tracef("Nodes with data ready to send: %v", readyNodes)
		pollTimeout = 0
	}
	s.sendProduceRequests(batches, nowMs)
	s.client.Poll(pollTimeout, nowMs)
}

// InitiateClose stops accepting records and lets the goroutine finish what is queued.
func (s *Sender) InitiateClose() {
	s.accumulator.Close()
	s.running.Store(false)
	s.Wakeup()
}

// ForceClose fails whatever is still queued and stops.
func (s *Sender) ForceClose() {
	s.forceClose.Store(true)
	s.InitiateClose()
}

// Wakeup interrupts the goroutine's Poll (a new batch, a flush, a metadata request).
func (s *Sender) Wakeup() { s.client.Wakeup() }

func (s *Sender) sendProduceRequests(collated map[int32][]*RecordBatch, nowMs int64) {
	for dest, batches := range collated {
		if len(batches) > 0 {
			s.sendProduceRequest(nowMs, dest, batches)
		}
	}
}

// sendProduceRequest makes one ProduceRequest v2 of batches (one partition each) for a leader.
//
// Kafka 0.10.2: Sender.sendProduceRequest.
func (s *Sender) sendProduceRequest(nowMs int64, destination int32, batches []*RecordBatch) {
	byPartition := make(map[common.TopicPartition]*RecordBatch, len(batches))
	req := &protocol.ProduceRequest{Version: produceRequestVersion, Acks: s.acks, Timeout: s.requestTimeoutMs}
	topicIndex := map[string]int{}
	for _, b := range batches {
		tp := b.topicPartition
		byPartition[tp] = b
		i, ok := topicIndex[tp.Topic]
		if !ok {
			i = len(req.TopicData)
			topicIndex[tp.Topic] = i
			req.TopicData = append(req.TopicData, protocol.ProduceRequestTopic{Topic: tp.Topic})
		}
		req.TopicData[i].Data = append(req.TopicData[i].Data, protocol.ProduceRequestTopicPartition{Partition: tp.Partition, RecordSet: b.records()})
	}
	node := strconv.Itoa(int(destination))
	callback := func(r *clients.ClientResponse) { s.handleProduceResponse(r, byPartition, s.time.Milliseconds()) }
	cr := s.client.NewClientRequest(node, req, nowMs, s.acks != 0, callback)
	if err := s.client.Send(cr, nowMs); err != nil {
		// Not ready after all (it was checked in this iteration): retry like a disconnection.
		s.log.Debugf("Could not send produce request to %s: %v", node, err)
		s.handleProduceResponse(&clients.ClientResponse{RequestHeader: cr.MakeHeader(), Destination: node, Disconnected: true}, byPartition, nowMs)
		return
	}
	s.log.Tracef("Sent produce request to %s: %d partitions", node, len(batches))
}

// handleProduceResponse completes the batches of one request.
//
// Kafka 0.10.2: Sender.handleProduceResponse.
func (s *Sender) handleProduceResponse(r *clients.ClientResponse, batches map[common.TopicPartition]*RecordBatch, nowMs int64) {
	corr := r.RequestHeader.CorrelationID
	switch {
	case r.Disconnected:
		s.log.Tracef("Cancelled request with correlation id %d due to node %s being disconnected", corr, r.Destination)
		for _, b := range batches {
			s.completeBatch(b, protocol.ErrNetworkException.Code, -1, record.NoTimestamp, corr, nowMs)
		}
	case r.VersionMismatch != nil:
		s.log.Warnf("Cancelled request with correlation id %d due to a version mismatch with node %s: %v", corr, r.Destination, r.VersionMismatch)
		for _, b := range batches {
			s.completeBatch(b, protocol.ErrInvalidRequest.Code, -1, record.NoTimestamp, corr, nowMs)
		}
	case r.HasResponse():
		s.log.Tracef("Received produce response from node %s with correlation id %d", r.Destination, corr)
		resp, _ := r.ResponseBody.(*protocol.ProduceResponse)
		if resp == nil {
			for _, b := range batches {
				s.completeBatch(b, protocol.ErrUnknown.Code, -1, record.NoTimestamp, corr, nowMs)
			}
			return
		}
		for _, t := range resp.Responses {
			for _, p := range t.PartitionResponses {
				tp := common.TopicPartition{Topic: t.Topic, Partition: p.Partition}
				if b := batches[tp]; b != nil {
					delete(batches, tp)
					lat := p.LogAppendTime
					if resp.Version < 2 {
						lat = record.NoTimestamp
					}
					s.completeBatch(b, p.ErrorCode, p.BaseOffset, lat, corr, nowMs)
				}
			}
		}
		// A partition the response does not mention cannot be left hanging.
		for _, b := range batches {
			s.completeBatch(b, protocol.ErrUnknown.Code, -1, record.NoTimestamp, corr, nowMs)
		}
		s.sensors.recordLatency(r.Destination, r.LatencyMs)
		s.sensors.recordThrottleTime(int64(resp.ThrottleTimeMs))
	default: // acks=0: the request's bytes were written, that is all that is known
		for _, b := range batches {
			s.completeBatch(b, 0, -1, record.NoTimestamp, corr, nowMs)
		}
	}
}

// completeBatch retries a batch that failed with a retriable error while attempts remain, and
// otherwise completes it; stale-metadata errors request a metadata update; the partition is
// unmuted.
//
// Kafka 0.10.2: Sender.completeBatch and canRetry.
func (s *Sender) completeBatch(b *RecordBatch, code int16, baseOffset, logAppendTime int64, corr int32, nowMs int64) {
	err := protocol.ErrorForCode(code)
	if err != nil && s.canRetry(b, err) {
		s.log.Warnf("Got error produce response with correlation id %d on topic-partition %s, retrying (%d attempts left). Error: %s",
			corr, b.topicPartition, s.retries-b.attempts-1, errorName(err))
		s.accumulator.Reenqueue(b, nowMs)
		s.sensors.recordRetries(b.topicPartition.Topic, b.recordCount)
	} else {
		if code == protocol.ErrTopicAuthorizationFailed.Code {
			err = protocol.Errorf(protocol.ErrTopicAuthorizationFailed, "Not authorized to access topics: [%s]", b.topicPartition.Topic)
		}
		b.done(baseOffset, logAppendTime, err, s.log, &s.accumulator.inCallback)
		s.accumulator.Deallocate(b)
		if err != nil {
			s.sensors.recordErrors(b.topicPartition.Topic, b.recordCount)
		}
	}
	if clients.IsInvalidMetadataError(err) {
		if code == protocol.ErrUnknownTopicOrPartition.Code {
			s.log.Warnf("Received unknown topic or partition error in produce request on partition %s. The topic/partition may not exist or the user may not have Describe access to it",
				b.topicPartition)
		}
		s.metadata.RequestUpdate()
	}
	if s.guaranteeMessageOrder {
		s.accumulator.UnmutePartition(b.topicPartition)
	}
}

func (s *Sender) canRetry(b *RecordBatch, err error) bool {
	ke, ok := err.(*protocol.Error)
	return b.attempts < s.retries && ok && ke.Retriable
}

func errorName(err error) string {
	if ke, ok := err.(*protocol.Error); ok {
		return ke.Name
	}
	return err.Error()
}
