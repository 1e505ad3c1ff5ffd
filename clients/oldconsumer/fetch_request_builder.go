package oldconsumer

import (
	"math"

	"github.com/zkafka/zkafka/clients/protocol"
)

// FetchRequestBuilder assembles a fetch request partition by partition; consecutive partitions
// of one topic share a topic entry, in the order added.
//
// Kafka 0.10.2: kafka.api.FetchRequestBuilder (the request it builds is kafka.api.FetchRequest
// at CurrentVersion 3, max_bytes Int.MaxValue, written with batchByTopic). Build empties the
// builder, as Kafka's does, so one builder serves a fetch loop.
type FetchRequestBuilder struct {
	version   int16
	replicaID int32
	maxWait   int32
	minBytes  int32
	maxBytes  int32
	topics    []protocol.FetchRequestTopic
}

// NewFetchRequestBuilder starts a request from an ordinary consumer (replica id -1) that does
// not wait (max wait 0, min bytes 0), as Kafka's defaults.
func NewFetchRequestBuilder() *FetchRequestBuilder {
	return &FetchRequestBuilder{version: FetchRequestCurrentVersion, replicaID: OrdinaryConsumerID, maxBytes: math.MaxInt32}
}

// ReplicaID sets the requester id (OrdinaryConsumerID, DebuggingConsumerID).
func (b *FetchRequestBuilder) ReplicaID(id int32) *FetchRequestBuilder { b.replicaID = id; return b }

// MaxWait sets how long the broker may wait for MinBytes.
func (b *FetchRequestBuilder) MaxWait(ms int32) *FetchRequestBuilder { b.maxWait = ms; return b }

// MinBytes sets the bytes the broker waits for.
func (b *FetchRequestBuilder) MinBytes(n int32) *FetchRequestBuilder { b.minBytes = n; return b }

// RequestVersion sets the Fetch version (0 to 3).
func (b *FetchRequestBuilder) RequestVersion(v int16) *FetchRequestBuilder { b.version = v; return b }

// AddFetch asks for fetchSize bytes of topic/partition from offset.
func (b *FetchRequestBuilder) AddFetch(topic string, partition int32, offset int64, fetchSize int32) *FetchRequestBuilder {
	if n := len(b.topics); n == 0 || b.topics[n-1].Topic != topic {
		b.topics = append(b.topics, protocol.FetchRequestTopic{Topic: topic})
	}
	last := &b.topics[len(b.topics)-1]
	last.Partitions = append(last.Partitions, protocol.FetchRequestTopicPartition{Partition: partition, FetchOffset: offset, MaxBytes: fetchSize})
	return b
}

// Build returns the request and empties the builder.
func (b *FetchRequestBuilder) Build() *protocol.FetchRequest {
	req := &protocol.FetchRequest{Version: b.version, ReplicaID: b.replicaID, MaxWaitTime: b.maxWait, MinBytes: b.minBytes,
		MaxBytes: b.maxBytes, Topics: b.topics}
	b.topics = nil
	return req
}
