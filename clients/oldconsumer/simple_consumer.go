package oldconsumer

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	kconfig "github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/oldclient"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/metrics"
)

// Request ids a consumer puts in replica_id (kafka.api.Request).
const (
	// OrdinaryConsumerID reads up to the high watermark.
	OrdinaryConsumerID int32 = -1
	// DebuggingConsumerID may also read from a follower (SimpleConsumerShell --replica).
	DebuggingConsumerID int32 = -2
)

// Special timestamps of an offset request (kafka.api.OffsetRequest).
const (
	// LatestTime asks for the log end offset.
	LatestTime int64 = -1
	// EarliestTime asks for the log start offset.
	EarliestTime int64 = -2
)

// FetchRequestCurrentVersion is the Fetch version the Scala consumers send
// (kafka.api.FetchRequest.CurrentVersion in 0.10.2), with max_bytes = Int.MaxValue.
const FetchRequestCurrentVersion int16 = 3

// SimpleConsumer talks to one broker over one blocking connection: fetch, offsets before a
// time, topic metadata, group coordinator, offset commit and fetch.
//
// Kafka 0.10.2: kafka.consumer.SimpleConsumer. A failed exchange is retried once on a new
// connection, as Kafka's sendRequest does; a cancelled context is not retried (Kafka's
// ClosedByInterruptException). It is safe for concurrent use: exchanges are serialised.
type SimpleConsumer struct {
	host     string
	port     int32
	clientID string
	log      *logrus.Entry
	stats    *FetchRequestAndResponseStats

	mu       sync.Mutex // one exchange at a time (Kafka's lock)
	channel  *oldclient.BlockingChannel
	isClosed bool
}

// NewSimpleConsumer makes a consumer of host:port; soTimeout bounds connect and each exchange.
// The receive buffer size of Kafka's constructor is left to the OS. reg and log may be nil.
func NewSimpleConsumer(host string, port int32, soTimeout time.Duration, clientID string, reg *metrics.Registry,
	log *logrus.Entry) (*SimpleConsumer, error) {
	if err := kconfig.ValidateChars("client.id", clientID); err != nil {
		return nil, err
	}
	return newSimpleConsumer(host, port, soTimeout, clientID, reg, log), nil
}

// newSimpleConsumer is NewSimpleConsumer for a client id already validated.
func newSimpleConsumer(host string, port int32, soTimeout time.Duration, clientID string, reg *metrics.Registry,
	log *logrus.Entry) *SimpleConsumer {
	if log == nil {
		log = discardEntry()
	}
	return &SimpleConsumer{host: host, port: port, clientID: clientID,
		log:     log.WithField("logger", "kafka.consumer.SimpleConsumer"),
		stats:   NewFetchRequestAndResponseStats(reg, clientID),
		channel: oldclient.NewBlockingChannel(host, port, clientID, soTimeout)}
}

// Host is the broker's host.
func (s *SimpleConsumer) Host() string { return s.host }

// Port is the broker's port.
func (s *SimpleConsumer) Port() int32 { return s.port }

// ClientID is the client id sent with each request.
func (s *SimpleConsumer) ClientID() string { return s.clientID }

// Close disconnects; later requests fail.
func (s *SimpleConsumer) Close() {
	s.channel.Disconnect() // unblocks an exchange in progress before waiting for the lock
	s.mu.Lock()
	defer s.mu.Unlock()
	s.channel.Disconnect()
	s.isClosed = true
}

// DisconnectToHandleJavaIOBug closes the connection without waiting for the exchange in
// progress, which then fails (Kafka uses it to unblock an interrupted fetcher).
func (s *SimpleConsumer) DisconnectToHandleJavaIOBug() { s.channel.Disconnect() }

// sendRequest sends req and reads resp, reconnecting and retrying once after a failure.
func (s *SimpleConsumer) sendRequest(ctx context.Context, req, resp protocol.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed {
		return fmt.Errorf("SimpleConsumer to %s:%d is closed", s.host, s.port)
	}
	err := s.channel.Connect()
	if err == nil {
		err = s.channel.SendContext(ctx, req, resp)
	}
	if err == nil || ctx.Err() != nil {
		return err
	}
	s.log.WithError(err).Info("Reconnect due to error:")
	s.channel.Disconnect()
	if err := s.channel.Connect(); err != nil {
		return err
	}
	if err := s.channel.SendContext(ctx, req, resp); err != nil {
		s.channel.Disconnect()
		return err
	}
	return nil
}

// SendMetadata sends a topic metadata request (v0, as TopicMetadataRequest).
func (s *SimpleConsumer) SendMetadata(ctx context.Context, topics []string) (*protocol.MetadataResponse, error) {
	if topics == nil {
		topics = []string{}
	}
	resp := &protocol.MetadataResponse{Version: 0}
	return resp, s.sendRequest(ctx, &protocol.MetadataRequest{Version: 0, Topics: topics}, resp)
}

// SendGroupCoordinator asks for a group's coordinator (GroupCoordinator v0).
func (s *SimpleConsumer) SendGroupCoordinator(ctx context.Context, group string) (*protocol.GroupCoordinatorResponse, error) {
	resp := &protocol.GroupCoordinatorResponse{Version: 0}
	return resp, s.sendRequest(ctx, &protocol.GroupCoordinatorRequest{Version: 0, GroupID: group}, resp)
}

// Fetch sends a fetch request and times it (FetchRequestRateAndTimeMs, FetchResponseSize).
func (s *SimpleConsumer) Fetch(ctx context.Context, req *protocol.FetchRequest) (*protocol.FetchResponse, error) {
	resp := &protocol.FetchResponse{Version: req.Version}
	specific := s.stats.GetFetchRequestAndResponseStats(s.host, s.port)
	all := s.stats.GetFetchRequestAndResponseAllBrokersStats()
	start := time.Now()
	if err := s.sendRequest(ctx, req, resp); err != nil {
		return nil, err
	}
	d := time.Since(start)
	specific.RequestTimer.Update(d)
	all.RequestTimer.Update(d)
	size := int64(FetchResponseSizeInBytes(resp))
	specific.RequestSizeHist.Update(size)
	all.RequestSizeHist.Update(size)
	throttle := time.Duration(resp.ThrottleTimeMs) * time.Millisecond
	specific.ThrottleTimeStats.Update(throttle)
	all.ThrottleTimeStats.Update(throttle)
	return resp, nil
}

// FetchResponseSizeInBytes is the bytes of record data in a fetch response.
func FetchResponseSizeInBytes(resp *protocol.FetchResponse) int {
	n := 0
	for _, t := range resp.Responses {
		for _, p := range t.PartitionResponses {
			if p.RecordSet != nil {
				n += p.RecordSet.SizeInBytes()
			}
		}
	}
	return n
}

// MessageSet returns the records of one partition of a fetch response (empty if absent).
//
// Kafka 0.10.2: FetchResponse.messageSet.
func MessageSet(resp *protocol.FetchResponse, topic string, partition int32) (*record.MemoryRecords, int16, int64) {
	for _, t := range resp.Responses {
		if t.Topic != topic {
			continue
		}
		for _, p := range t.PartitionResponses {
			if p.PartitionHeader.Partition == partition {
				return asMemoryRecords(p.RecordSet), p.PartitionHeader.ErrorCode, p.PartitionHeader.HighWatermark
			}
		}
	}
	return record.NewMemoryRecords(nil), 0, -1
}

func asMemoryRecords(r record.Records) *record.MemoryRecords {
	if mr, ok := r.(*record.MemoryRecords); ok && mr != nil {
		return mr
	}
	return record.NewMemoryRecords(nil)
}

// GetOffsetsBefore sends an offset request (ListOffsets v0).
func (s *SimpleConsumer) GetOffsetsBefore(ctx context.Context, req *protocol.ListOffsetRequest) (*protocol.ListOffsetResponse, error) {
	resp := &protocol.ListOffsetResponse{Version: req.Version}
	return resp, s.sendRequest(ctx, req, resp)
}

// CommitOffsets sends an offset commit (v0 writes to ZooKeeper on the broker, v1+ to Kafka).
func (s *SimpleConsumer) CommitOffsets(ctx context.Context, req *protocol.OffsetCommitRequest) (*protocol.OffsetCommitResponse, error) {
	resp := &protocol.OffsetCommitResponse{Version: req.Version}
	return resp, s.sendRequest(ctx, req, resp)
}

// FetchOffsets sends an offset fetch (v0 reads ZooKeeper on the broker, v1+ Kafka).
func (s *SimpleConsumer) FetchOffsets(ctx context.Context, req *protocol.OffsetFetchRequest) (*protocol.OffsetFetchResponse, error) {
	resp := &protocol.OffsetFetchResponse{Version: req.Version}
	return resp, s.sendRequest(ctx, req, resp)
}

// OffsetRequest builds a v0 offset request for one partition, as consumerID.
func OffsetRequest(tp common.TopicPartition, timestamp int64, maxNumOffsets int32, consumerID int32) *protocol.ListOffsetRequest {
	return &protocol.ListOffsetRequest{Version: 0, ReplicaID: consumerID, Topics: []protocol.ListOffsetRequestTopic{{
		Topic: tp.Topic, Partitions: []protocol.ListOffsetRequestTopicPartition{{Partition: tp.Partition, Timestamp: timestamp,
			MaxNumOffsets: maxNumOffsets}}}}}
}

// PartitionOffsets finds one partition's answer in an offset response.
func PartitionOffsets(resp *protocol.ListOffsetResponse, tp common.TopicPartition) (offsets []int64, errorCode int16, ok bool) {
	for _, t := range resp.Responses {
		if t.Topic != tp.Topic {
			continue
		}
		for _, p := range t.PartitionResponses {
			if p.Partition == tp.Partition {
				return p.Offsets, p.ErrorCode, true
			}
		}
	}
	return nil, 0, false
}

// EarliestOrLatestOffset asks for a partition's log start (EarliestTime) or end (LatestTime)
// offset as consumerID (a consumer, SimpleConsumerShell or a follower).
func (s *SimpleConsumer) EarliestOrLatestOffset(ctx context.Context, tp common.TopicPartition, earliestOrLatest int64,
	consumerID int32) (int64, error) {
	resp, err := s.GetOffsetsBefore(ctx, OffsetRequest(tp, earliestOrLatest, 1, consumerID))
	if err != nil {
		return 0, err
	}
	offsets, code, ok := PartitionOffsets(resp, tp)
	switch {
	case !ok:
		return 0, fmt.Errorf("partition %s missing from the offset response of %s:%d", tp, s.host, s.port)
	case code != 0:
		return 0, protocol.ErrorForCode(code)
	case len(offsets) == 0:
		return 0, fmt.Errorf("no offset for partition %s in the offset response of %s:%d", tp, s.host, s.port)
	}
	return offsets[0], nil
}

func discardEntry() *logrus.Entry {
	l := logrus.New()
	l.SetLevel(logrus.PanicLevel)
	return logrus.NewEntry(l)
}
