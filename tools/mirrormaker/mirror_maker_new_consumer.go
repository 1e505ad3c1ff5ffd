package mirrormaker

import (
	"errors"
	"regexp"
	"strconv"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/consumer"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/clients/serialization"
)

// newConsumerPollTimeout is receive's poll timeout: one second, so that an
// offset.commit.interval.ms above a second is not delayed by a quiet source.
const newConsumerPollTimeout = time.Second

// MirrorMakerNewConsumer is a MirrorMakerBaseConsumer on one KafkaConsumer subscribed to the
// whitelist as a regex pattern. It keeps the offsets of the records it has handed to the thread
// itself (the consumer's positions run ahead by a whole poll), and commits exactly those with
// commitSync; a rebalance flushes and commits through the internal listener before the
// partitions are revoked, so the commit-request handshake of the old consumer is not needed.
//
// Kafka 0.10.2: MirrorMaker.MirrorMakerNewConsumer.
type MirrorMakerNewConsumer struct {
	consumer  *consumer.KafkaConsumer[[]byte, []byte]
	whitelist string
	listener  consumer.ConsumerRebalanceListener
	pending   []consumer.ConsumerRecord[[]byte, []byte]
	offsets   map[common.TopicPartition]int64
	log       *logrus.Entry
}

// Init implements MirrorMakerBaseConsumer: the pattern subscription with the listener; a bad
// expression is logged ("Invalid expression syntax") and fails the thread.
func (n *MirrorMakerNewConsumer) Init() error {
	n.log.Debug("Initiating new consumer")
	w, err := oldconsumer.NewWhitelist(n.whitelist)
	var p *regexp.Regexp
	if err == nil {
		p, err = regexp.Compile(w.Regex())
	}
	if err == nil {
		err = n.consumer.SubscribePattern(p, n.listener)
	}
	if err != nil {
		n.log.Error("Invalid expression syntax: " + n.whitelist)
	}
	return err
}

// RequestAndWaitForCommit implements MirrorMakerBaseConsumer: nothing to do, the rebalance
// listener commits itself.
func (n *MirrorMakerNewConsumer) RequestAndWaitForCommit() {}

// NotifyCommit implements MirrorMakerBaseConsumer (nothing to do).
func (n *MirrorMakerNewConsumer) NotifyCommit() {}

// CommitRequested implements MirrorMakerBaseConsumer: never.
func (n *MirrorMakerNewConsumer) CommitRequested() bool { return false }

// Done implements MirrorMakerBaseConsumer (nothing waits).
func (n *MirrorMakerNewConsumer) Done() {}

// HasData implements MirrorMakerBaseConsumer: always; Receive says when nothing came.
func (n *MirrorMakerNewConsumer) HasData() (bool, error) { return true, nil }

// Receive implements oldconsumer.BaseConsumer: the next buffered record, polling for up to a
// second when none is; oldconsumer.ErrConsumerTimeout when the poll brought none,
// consumer.ErrWakeup after Stop.
func (n *MirrorMakerNewConsumer) Receive() (oldconsumer.BaseConsumerRecord, error) {
	if len(n.pending) == 0 {
		recs, err := n.consumer.Poll(newConsumerPollTimeout)
		if err != nil {
			return oldconsumer.BaseConsumerRecord{}, err
		}
		n.pending = recs.All()
		if len(n.pending) == 0 {
			return oldconsumer.BaseConsumerRecord{}, oldconsumer.ErrConsumerTimeout
		}
	}
	r := n.pending[0]
	n.pending = n.pending[1:]
	n.offsets[common.TopicPartition{Topic: r.Topic, Partition: r.Partition}] = r.Offset + 1
	return oldconsumer.BaseConsumerRecord{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Timestamp: r.Timestamp,
		TimestampType: r.TimestampType, Key: r.Key, Value: r.Value}, nil
}

// Stop implements oldconsumer.BaseConsumer: KafkaConsumer.wakeup (any goroutine).
func (n *MirrorMakerNewConsumer) Stop() { n.consumer.Wakeup() }

// Cleanup implements oldconsumer.BaseConsumer: the consumer closes and leaves the group.
func (n *MirrorMakerNewConsumer) Cleanup() { _ = n.consumer.Close(30 * time.Second) }

// Commit implements oldconsumer.BaseConsumer: commitSync of the offsets after the records
// handed out since the last commit.
func (n *MirrorMakerNewConsumer) Commit() error {
	offsets := make(map[common.TopicPartition]consumer.OffsetAndMetadata, len(n.offsets))
	for tp, o := range n.offsets {
		offsets[tp] = consumer.OffsetAndMetadata{Offset: o}
	}
	if err := n.consumer.CommitSync(offsets); err != nil {
		return err
	}
	clear(n.offsets)
	return nil
}

// internalRebalanceListenerForNewConsumer flushes the producer and commits before the
// partitions are revoked, so that the next owner starts after what was copied.
//
// Kafka 0.10.2: MirrorMaker.InternalRebalanceListenerForNewConsumer.
type internalRebalanceListenerForNewConsumer struct {
	mm       *MirrorMaker
	consumer MirrorMakerBaseConsumer
	custom   consumer.ConsumerRebalanceListener
}

// OnPartitionsRevoked implements consumer.ConsumerRebalanceListener.
func (l *internalRebalanceListenerForNewConsumer) OnPartitionsRevoked(partitions []common.TopicPartition) {
	l.mm.producer.Flush()
	l.mm.commitOffsets(l.consumer)
	if l.custom != nil {
		l.custom.OnPartitionsRevoked(partitions)
	}
}

// OnPartitionsAssigned implements consumer.ConsumerRebalanceListener.
func (l *internalRebalanceListenerForNewConsumer) OnPartitionsAssigned(partitions []common.TopicPartition) {
	if l.custom != nil {
		l.custom.OnPartitionsAssigned(partitions)
	}
}

// createNewConsumers makes one KafkaConsumer per stream (client.id <group.id>-<i>) with auto
// commit off unless configured and byte-array deserializers.
//
// Kafka 0.10.2: MirrorMaker.createNewConsumers.
func (mm *MirrorMaker) createNewConsumers(numStreams int, props map[string]string, custom consumer.ConsumerRebalanceListener,
	whitelist *string, deps Deps) ([]MirrorMakerBaseConsumer, error) {
	mm.maybeSetDefaultProperty(props, consumer.EnableAutoCommitConfig, "false")
	props[consumer.KeyDeserializerClassConfig] = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
	props[consumer.ValueDeserializerClassConfig] = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
	if whitelist == nil {
		return nil, &startError{"java.lang.IllegalArgumentException", errors.New("White list cannot be empty for new consumer")}
	}
	log := deps.ConsumerLog
	if log == nil {
		log = mm.log
	}
	var out []MirrorMakerBaseConsumer
	for i := 0; i < numStreams; i++ {
		p := make(map[string]string, len(props)+1)
		for k, v := range props {
			p[k] = v
		}
		p[consumer.ClientIDConfig] = props[consumer.GroupIDConfig] + "-" + strconv.Itoa(i)
		c, err := consumer.NewKafkaConsumerWith[[]byte, []byte](p, serialization.ByteArrayDeserializer{}, serialization.ByteArrayDeserializer{},
			consumer.ConsumerOptions[[]byte, []byte]{Log: log})
		if err != nil {
			for _, o := range out {
				o.Cleanup()
			}
			return nil, err
		}
		n := &MirrorMakerNewConsumer{consumer: c, whitelist: *whitelist, offsets: map[common.TopicPartition]int64{},
			log: mm.log}
		n.listener = &internalRebalanceListenerForNewConsumer{mm: mm, consumer: n, custom: custom}
		out = append(out, n)
	}
	return out, nil
}
