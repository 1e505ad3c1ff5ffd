package server

import (
	"fmt"
	"strings"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/security/auth"
)

// --- Produce ---

func (a *KafkaApis) handleProducerRequest(req *network.Request) error {
	pr, ok := req.Body.(*protocol.ProduceRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	numBytesAppended := requestSize(req)
	var entries []ProduceEntry
	unknown := map[common.TopicPartition]PartitionResponse{}
	for _, td := range pr.TopicData {
		// 0.10.2: a topic the principal may not Describe reads as unknown; one it may not Write
		// is TOPIC_AUTHORIZATION_FAILED.
		var deny error
		switch {
		case !a.authorize(req.Session, auth.Describe, topicResource(td.Topic)) || !a.metadataCache.Contains(td.Topic):
			deny = protocol.ErrUnknownTopicOrPartition
		case !a.authorize(req.Session, auth.Write, topicResource(td.Topic)):
			deny = protocol.ErrTopicAuthorizationFailed
		}
		for _, d := range td.Data {
			tp := common.TopicPartition{Topic: td.Topic, Partition: d.Partition}
			if deny != nil {
				unknown[tp] = PartitionResponse{Err: deny, BaseOffset: -1, LogAppendTime: record.NoTimestamp}
				continue
			}
			mr, ok := d.RecordSet.(*record.MemoryRecords)
			if !ok {
				mr = record.NewMemoryRecords(nil)
			}
			entries = append(entries, ProduceEntry{TopicPartition: tp, Records: mr})
		}
	}
	cb := func(status map[common.TopicPartition]PartitionResponse) {
		for tp, s := range unknown {
			status[tp] = s
		}
		produceResponseCallback := func(delayTimeMs int32) {
			if pr.Acks == 0 {
				var failed []string
				for tp, s := range status {
					if s.Err != nil {
						failed = append(failed, fmt.Sprintf("%s -> %s", tp, protocol.ErrorForCode(protocol.CodeOf(s.Err)).(*protocol.Error).Name))
					}
				}
				if len(failed) > 0 {
					a.logger.Infof("Closing connection due to error during produce request with correlation id %d from client id %s with ack=0\nTopic and partition to exceptions: %s",
						req.Header.CorrelationID, clientIDOf(req), strings.Join(failed, ","))
					a.requestChannel.CloseConnection(req)
				} else {
					a.requestChannel.NoOperation(req)
				}
				return
			}
			resp := &protocol.ProduceResponse{Version: pr.Version, ThrottleTimeMs: delayTimeMs} // v0 has no throttle_time_ms
			for _, td := range pr.TopicData {
				t := protocol.ProduceResponseTopic{Topic: td.Topic}
				for _, d := range td.Data {
					s := status[common.TopicPartition{Topic: td.Topic, Partition: d.Partition}]
					t.PartitionResponses = append(t.PartitionResponses, protocol.ProduceResponseTopicPartition{
						Partition: d.Partition, ErrorCode: protocol.CodeOf(s.Err), BaseOffset: s.BaseOffset, LogAppendTime: s.LogAppendTime})
				}
				resp.Responses = append(resp.Responses, t)
			}
			a.sendResponse(req, resp)
		}
		// The remote part is over; a quota delay counts as throttle time (RequestMetrics).
		req.MarkAPIRemoteComplete()
		a.quotas.produce().RecordAndMaybeThrottle(sessionSanitizedUser(req.Session), clientIDOf(req), numBytesAppended,
			produceResponseCallback)
	}
	internalTopicsAllowed := clientIDOf(req) == AdminClientID
	a.replicaManager.AppendRecords(int64(pr.Timeout), pr.Acks, internalTopicsAllowed, entries, cb)
	return nil
}
