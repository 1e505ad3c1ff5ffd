package mirrormaker

import (
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/oldconsumer"
)

// MirrorMakerBaseConsumer is what a MirrorMakerThread needs of its consumer, old or new.
//
// Kafka 0.10.2: MirrorMaker.MirrorMakerBaseConsumer.
type MirrorMakerBaseConsumer interface {
	oldconsumer.BaseConsumer
	// Init subscribes (the old consumer creates its stream: registration and first rebalance).
	Init() error
	// HasData waits for a record: false when the stream ended; oldconsumer.ErrConsumerTimeout
	// when none came within the consumer's timeout.
	HasData() (bool, error)
	// CommitRequested reports whether a rebalance waits for a flush and a commit.
	CommitRequested() bool
	// NotifyCommit tells the waiting rebalance that the commit is done.
	NotifyCommit()
	// RequestAndWaitForCommit asks the thread to flush and commit and waits until it has (or
	// has made its last commit).
	RequestAndWaitForCommit()
	// Done says the thread has made its last commit: a rebalance waiting for a commit goes on.
	Done()
}

// MirrorMakerOldConsumer is a MirrorMakerBaseConsumer on one ZookeeperConsumerConnector with one
// stream over the topic filter.
//
// Kafka 0.10.2: MirrorMaker.MirrorMakerOldConsumer.
type MirrorMakerOldConsumer struct {
	connector *oldconsumer.ZookeeperConsumerConnector
	filter    oldconsumer.TopicFilter
	iter      *oldconsumer.ConsumerIterator[[]byte, []byte]

	mu                       sync.Mutex
	cond                     *sync.Cond
	initialized              bool
	stopped                  bool
	immediateCommitRequested bool
}

func newMirrorMakerOldConsumer(c *oldconsumer.ZookeeperConsumerConnector, filter oldconsumer.TopicFilter) *MirrorMakerOldConsumer {
	o := &MirrorMakerOldConsumer{connector: c, filter: filter}
	o.cond = sync.NewCond(&o.mu)
	return o
}

// Init implements MirrorMakerBaseConsumer: one stream per connector.
func (o *MirrorMakerOldConsumer) Init() error {
	streams, err := o.connector.CreateMessageStreamsByFilter(o.filter, 1)
	if err != nil {
		return err
	}
	if len(streams) != 1 {
		return errors.New("requirement failed")
	}
	o.mu.Lock()
	o.iter = streams[0].Iterator()
	o.initialized = true
	o.mu.Unlock()
	return nil
}

// RequestAndWaitForCommit implements MirrorMakerBaseConsumer; it returns at once before Init
// and once the thread has stopped (it commits no more).
func (o *MirrorMakerOldConsumer) RequestAndWaitForCommit() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.initialized || o.stopped {
		return
	}
	o.immediateCommitRequested = true
	for o.immediateCommitRequested && !o.stopped {
		o.cond.Wait()
	}
}

// NotifyCommit implements MirrorMakerBaseConsumer.
func (o *MirrorMakerOldConsumer) NotifyCommit() {
	o.mu.Lock()
	o.immediateCommitRequested = false
	o.cond.Broadcast()
	o.mu.Unlock()
}

// CommitRequested implements MirrorMakerBaseConsumer.
func (o *MirrorMakerOldConsumer) CommitRequested() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.immediateCommitRequested
}

// HasData implements MirrorMakerBaseConsumer.
func (o *MirrorMakerOldConsumer) HasData() (bool, error) { return o.iter.HasNext() }

// Receive implements oldconsumer.BaseConsumer.
func (o *MirrorMakerOldConsumer) Receive() (oldconsumer.BaseConsumerRecord, error) {
	m, err := o.iter.Next()
	if err != nil {
		return oldconsumer.BaseConsumerRecord{}, err
	}
	return oldconsumer.BaseConsumerRecord{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset, Timestamp: m.Timestamp,
		TimestampType: m.TimestampType, Key: m.Key(), Value: m.Message()}, nil
}

// Stop implements oldconsumer.BaseConsumer: as in Kafka it does nothing (the thread notices its
// shutdown flag within consumer.timeout.ms, and a rebalance waiting for a commit still gets it).
func (o *MirrorMakerOldConsumer) Stop() {}

// Done implements MirrorMakerBaseConsumer: a rebalance waiting for a commit is released, since
// the thread, having made its last commit, will commit no more (Kafka would wait for ever).
func (o *MirrorMakerOldConsumer) Done() {
	o.mu.Lock()
	o.stopped = true
	o.cond.Broadcast()
	o.mu.Unlock()
}

// Cleanup implements oldconsumer.BaseConsumer: the connector shuts down.
func (o *MirrorMakerOldConsumer) Cleanup() { o.connector.Shutdown() }

// Commit implements oldconsumer.BaseConsumer: the consumed offsets of every owned partition.
func (o *MirrorMakerOldConsumer) Commit() error { return o.connector.CommitOffsets() }

// internalRebalanceListenerForOldConsumer makes a rebalance wait, before the partitions are
// released, until the thread has flushed the producer and committed what it sent.
//
// Kafka 0.10.2: MirrorMaker.InternalRebalanceListenerForOldConsumer.
type internalRebalanceListenerForOldConsumer struct {
	mm       *MirrorMaker
	consumer MirrorMakerBaseConsumer
	custom   oldconsumer.ConsumerRebalanceListener
}

func (l *internalRebalanceListenerForOldConsumer) BeforeReleasingPartitions(ownership map[string]map[int32]struct{}) {
	l.consumer.RequestAndWaitForCommit()
	if l.custom != nil {
		l.custom.BeforeReleasingPartitions(ownership)
	}
}

func (l *internalRebalanceListenerForOldConsumer) BeforeStartingFetchers(consumerID string, assignment map[string]map[int32]oldconsumer.ConsumerThreadId) {
	if l.custom != nil {
		l.custom.BeforeStartingFetchers(consumerID, assignment)
	}
}

// MirrorMakerThread copies from one consumer stream to the shared producer, flushing and
// committing every offset.commit.interval.ms and when a rebalance asks for it.
//
// Kafka 0.10.2: MirrorMaker.MirrorMakerThread.
type MirrorMakerThread struct {
	mm                 *MirrorMaker
	consumer           MirrorMakerBaseConsumer
	threadID           int
	name               string
	log                *logrus.Entry
	shutdownLatch      chan struct{}
	lastOffsetCommitMs time.Time
	shuttingDown       atomic.Bool
}

func newMirrorMakerThread(mm *MirrorMaker, c MirrorMakerBaseConsumer, id int) *MirrorMakerThread {
	name := "mirrormaker-thread-" + strconv.Itoa(id)
	return &MirrorMakerThread{mm: mm, consumer: c, threadID: id, name: name, shutdownLatch: make(chan struct{}),
		lastOffsetCommitMs: time.Now(),
		log:                mm.log.WithField("logger", "kafka.tools.MirrorMaker$MirrorMakerThread").WithField("ident", "["+name+"] ")}
}

func (t *MirrorMakerThread) start() { go t.run() }

func (t *MirrorMakerThread) exiting() bool {
	return t.mm.exitingOnSendFailure.Load() || t.shuttingDown.Load()
}

func (t *MirrorMakerThread) run() {
	defer close(t.shutdownLatch)
	t.log.Info("Starting mirror maker thread " + t.name)
	if err := t.copy(); err != nil {
		t.mm.exitingOnSendFailure.Store(true)
		t.log.WithError(err).Log(logrus.FatalLevel, "Mirror maker thread failure due to ")
	}
	t.log.Info("Flushing producer.")
	t.mm.producer.Flush()
	// Skipped after a send failure, so that nothing unsent is marked as copied.
	t.log.Info("Committing consumer offsets.")
	t.mm.commitOffsets(t.consumer)
	t.consumer.Done()
	t.log.Info("Shutting down consumer connectors.")
	t.consumer.Stop()
	t.consumer.Cleanup()
	t.log.Info("Mirror maker thread stopped")
	if !t.mm.isShuttingDown.Load() {
		t.log.Log(logrus.FatalLevel, "Mirror maker thread exited abnormally, stopping the whole mirror maker.")
		t.mm.exitAbnormally()
	}
}

// copy is the thread's loop: the outer loop goes on after a consumer timeout, so that a quiet
// stream still commits.
func (t *MirrorMakerThread) copy() error {
	if err := t.consumer.Init(); err != nil {
		return err
	}
	for !t.exiting() {
		for !t.exiting() {
			ok, err := t.consumer.HasData()
			if errors.Is(err, oldconsumer.ErrConsumerTimeout) {
				t.log.Trace("Caught ConsumerTimeoutException, continue iteration.")
				break
			}
			if err != nil {
				return err
			}
			if !ok {
				if t.shuttingDown.Load() {
					break
				}
				return oldconsumer.ErrStreamEnd
			}
			data, err := t.consumer.Receive()
			if err != nil {
				return err
			}
			t.log.Tracef("Sending message with value size %d and offset %d", len(data.Value), data.Offset)
			for _, r := range t.mm.messageHandler.Handle(data) {
				if err := t.mm.producer.Send(r); err != nil {
					return err
				}
			}
			t.maybeFlushAndCommitOffsets()
		}
		t.maybeFlushAndCommitOffsets()
	}
	return nil
}

// maybeFlushAndCommitOffsets flushes the producer and commits when a rebalance asks for it or
// offset.commit.interval.ms has passed since the last commit.
//
// Kafka 0.10.2: MirrorMakerThread.maybeFlushAndCommitOffsets.
func (t *MirrorMakerThread) maybeFlushAndCommitOffsets() {
	requested := t.consumer.CommitRequested()
	if requested || time.Since(t.lastOffsetCommitMs) > time.Duration(t.mm.offsetCommitIntervalMs)*time.Millisecond {
		t.log.Debug("Committing MirrorMaker state.")
		t.mm.producer.Flush()
		t.mm.commitOffsets(t.consumer)
		t.lastOffsetCommitMs = time.Now()
		if requested {
			t.consumer.NotifyCommit()
		}
	}
}

// shutdown asks the thread to stop; it does within the consumer's timeout.
func (t *MirrorMakerThread) shutdown() {
	t.log.Info(t.name + " shutting down")
	t.shuttingDown.Store(true)
	t.consumer.Stop()
}

// awaitShutdown waits until the thread has stopped.
func (t *MirrorMakerThread) awaitShutdown() {
	<-t.shutdownLatch
	t.log.Info("Mirror maker thread shutdown complete")
}
