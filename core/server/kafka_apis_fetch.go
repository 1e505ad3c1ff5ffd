package server

import (
	"fmt"
	"io"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/security/auth"
)

// fetchResponseSend writes a FetchResponse frame at write time, streaming each FileRecords
// slice from its segment file with sendfile (protocol.WriteResponse leaves them out of the
// encoded buffer).
//
// Kafka 0.10.2: kafka.api.FetchResponseSend / FetchResponse.toSend.
type fetchResponseSend struct {
	header protocol.ResponseHeader
	body   *protocol.FetchResponse
}

// WriteTo implements network.Send.
func (s fetchResponseSend) WriteTo(w io.Writer) (int64, error) {
	return protocol.WriteResponse(w, s.header, s.body)
}

// --- Fetch ---

func (a *KafkaApis) handleFetchRequest(req *network.Request) error {
	fr, ok := req.Body.(*protocol.FetchRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	version := fr.Version
	var authorized []PartitionFetchInfo
	var unknown []FetchPartitionData
	// 0.10.2: a follower without ClusterAction gets CLUSTER_AUTHORIZATION_FAILED everywhere; a
	// topic the principal may not Describe reads as unknown; one it may not Read is
	// TOPIC_AUTHORIZATION_FAILED.
	clusterDenied := fr.ReplicaID >= 0 && !a.authorize(req.Session, auth.ClusterAction, auth.ClusterResource)
	for _, t := range fr.Topics {
		var deny error
		switch {
		case clusterDenied:
			deny = protocol.ErrClusterAuthorizationFailed
		case !a.authorize(req.Session, auth.Describe, topicResource(t.Topic)) || !a.metadataCache.Contains(t.Topic):
			deny = protocol.ErrUnknownTopicOrPartition
		case !a.authorize(req.Session, auth.Read, topicResource(t.Topic)):
			deny = protocol.ErrTopicAuthorizationFailed
		}
		for _, p := range t.Partitions {
			tp := common.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			if deny != nil {
				unknown = append(unknown, FetchPartitionData{TopicPartition: tp, Err: deny, HW: -1,
					Records: record.NewMemoryRecords(nil)})
				continue
			}
			authorized = append(authorized, PartitionFetchInfo{TopicPartition: tp, Offset: p.FetchOffset, MaxBytes: p.MaxBytes})
		}
	}
	cb := func(data []FetchPartitionData) {
		req.MarkAPIRemoteComplete()
		merged := make([]FetchPartitionData, 0, len(data)+len(unknown))
		for _, d := range data {
			if version <= 1 && d.Records != nil {
				if magic, ok := a.replicaManager.GetMagic(d.TopicPartition); ok && magic > record.MagicValueV0 {
					d.Records = a.downConvert(d)
				}
			}
			merged = append(merged, d)
		}
		if fr.ReplicaID < 0 { // bytes out count consumer fetches only, as in 0.10.2
			for _, d := range merged {
				if d.Records != nil {
					n := int64(d.Records.SizeInBytes())
					a.replicaManager.meters(d.TopicPartition.Topic, func(m *metrics.BrokerTopicMetrics) { m.BytesOutRate.Mark(n) })
				}
			}
		}
		merged = append(merged, unknown...)
		resp := &protocol.FetchResponse{Version: version}
		for _, d := range merged {
			ph := protocol.FetchResponseTopicPartitionHeader{Partition: d.TopicPartition.Partition, ErrorCode: protocol.CodeOf(d.Err), HighWatermark: d.HW}
			entry := protocol.FetchResponseTopicPartition{PartitionHeader: ph, RecordSet: d.Records}
			if entry.RecordSet == nil {
				entry.RecordSet = record.NewMemoryRecords(nil)
			}
			n := len(resp.Responses)
			if n > 0 && resp.Responses[n-1].Topic == d.TopicPartition.Topic {
				resp.Responses[n-1].PartitionResponses = append(resp.Responses[n-1].PartitionResponses, entry)
			} else {
				resp.Responses = append(resp.Responses, protocol.FetchResponseTopic{Topic: d.TopicPartition.Topic,
					PartitionResponses: []protocol.FetchResponseTopicPartition{entry}})
			}
		}
		fetchResponseCallback := func(delayTimeMs int32) {
			resp.ThrottleTimeMs = delayTimeMs // v0 has no throttle_time_ms
			a.requestLogger.Debugf("Completed request:%s from connection %s", describe(req), req.ConnectionID)
			a.requestChannel.SendResponse(&network.Response{Request: req,
				Send: fetchResponseSend{header: protocol.ResponseHeader{CorrelationID: req.Header.CorrelationID}, body: resp}})
		}
		if fr.ReplicaID >= 0 {
			// A follower was checked against the leader quota when its partitions were read; what
			// it gets of the throttled ones now counts towards that quota.
			a.quotas.leader().Record(int64(sizeOfThrottledPartitions(resp, a.quotas.leader())))
			fetchResponseCallback(0)
		} else {
			a.quotas.fetch().RecordAndMaybeThrottle(sessionSanitizedUser(req.Session), clientIDOf(req), resp.SizeOf(),
				fetchResponseCallback)
		}
	}
	if len(authorized) == 0 {
		cb(nil)
		return nil
	}
	maxBytes := fr.MaxBytes
	if version <= 2 {
		maxBytes = 1<<31 - 1 // FetchRequest.DEFAULT_RESPONSE_MAX_BYTES
	}
	a.replicaManager.FetchMessages(int64(fr.MaxWaitTime), fr.ReplicaID, fr.MinBytes, maxBytes, version <= 2, authorized,
		a.replicationQuota(fr), cb)
	return nil
}

// downConvert gives a v0/v1 fetcher magic-0 messages when the chunk holds newer ones.
func (a *KafkaApis) downConvert(d FetchPartitionData) record.Records {
	type converter interface {
		HasMatchingShallowMagic(int8) (bool, error)
		ToMessageFormat(int8) (record.Records, error)
	}
	c, ok := d.Records.(converter)
	if !ok {
		return d.Records
	}
	if match, err := c.HasMatchingShallowMagic(record.MagicValueV0); err != nil || match {
		return d.Records
	}
	a.logger.Tracef("Down converting message to V0 for fetch request from partition %s", d.TopicPartition)
	conv, err := c.ToMessageFormat(record.MagicValueV0)
	if err != nil {
		a.logger.WithError(err).Warnf("Down conversion failed for %s", d.TopicPartition)
		return d.Records
	}
	return conv
}

// replicationQuota is the leader's replication quota for a follower's fetch, none for a
// consumer's.
//
// Kafka 0.10.2: KafkaApis.replicationQuota.
func (a *KafkaApis) replicationQuota(fr *protocol.FetchRequest) ReplicaQuota {
	if fr.ReplicaID >= 0 && a.quotas.leader() != nil {
		return a.quotas.leader()
	}
	return UnboundedQuota
}

// sizeOfThrottledPartitions is the size of a fetch response made of only the partitions the
// quota throttles (what a follower's fetch counts towards the leader quota).
//
// Kafka 0.10.2: KafkaApis.sizeOfThrottledPartitions.
func sizeOfThrottledPartitions(resp *protocol.FetchResponse, quota *ReplicationQuotaManager) int {
	throttled := &protocol.FetchResponse{Version: resp.Version}
	for _, t := range resp.Responses {
		var ps []protocol.FetchResponseTopicPartition
		for _, p := range t.PartitionResponses {
			if quota.IsThrottled(common.TopicPartition{Topic: t.Topic, Partition: p.PartitionHeader.Partition}) {
				ps = append(ps, p)
			}
		}
		if len(ps) > 0 {
			throttled.Responses = append(throttled.Responses, protocol.FetchResponseTopic{Topic: t.Topic, PartitionResponses: ps})
		}
	}
	return throttled.SizeOf()
}
