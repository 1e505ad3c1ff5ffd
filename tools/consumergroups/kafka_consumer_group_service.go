package consumergroups

import (
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// kafkaConsumerGroupService is the Java consumer's view, asked of the brokers.
//
// Kafka 0.10.2: ConsumerGroupCommand.KafkaConsumerGroupService over kafka.admin.AdminClient
// (findCoordinator, listAllConsumerGroupsFlattened, describeConsumerGroup, listGroupOffsets).
// The log end offsets come from ListOffsets to each partition's leader, which is what the
// KafkaConsumer's seekToEnd sends.
type kafkaConsumerGroupService struct {
	bootstrap []string
	timeout   time.Duration
}

func newKafkaConsumerGroupService(bootstrap string, timeout time.Duration) *kafkaConsumerGroupService {
	var servers []string
	for _, s := range strings.Split(bootstrap, ",") {
		if s = strings.TrimSpace(s); s != "" {
			servers = append(servers, s)
		}
	}
	return &kafkaConsumerGroupService{bootstrap: servers, timeout: timeout}
}

func (s *kafkaConsumerGroupService) close() {}

// sendAnyNode sends to the first bootstrap server that answers.
func (s *kafkaConsumerGroupService) sendAnyNode(req, resp protocol.Message) error {
	var last error = errors.New("no bootstrap servers")
	for _, addr := range s.bootstrap {
		c, err := connectAddr(addr, s.timeout)
		if err != nil {
			last = err
			continue
		}
		err = c.Send(req, resp)
		c.Close()
		if err == nil {
			return nil
		}
		last = err
	}
	return fmt.Errorf("request %s failed on all bootstrap brokers: %w", req.Key(), last)
}

type node struct {
	id   int32
	host string
	port int32
}

func (n node) String() string { return net.JoinHostPort(n.host, strconv.Itoa(int(n.port))) }

func (s *kafkaConsumerGroupService) metadata(topics []string) (*protocol.MetadataResponse, error) {
	resp := &protocol.MetadataResponse{Version: 0}
	if topics == nil {
		topics = []string{} // v0: an empty list is every topic
	}
	err := s.sendAnyNode(&protocol.MetadataRequest{Version: 0, Topics: topics}, resp)
	return resp, err
}

func (s *kafkaConsumerGroupService) findCoordinator(group string) (node, error) {
	resp := &protocol.GroupCoordinatorResponse{Version: 0}
	if err := s.sendAnyNode(&protocol.GroupCoordinatorRequest{Version: 0, GroupID: group}, resp); err != nil {
		return node{}, err
	}
	if resp.ErrorCode != 0 {
		return node{}, protocol.ErrorForCode(resp.ErrorCode)
	}
	return node{resp.Coordinator.NodeID, resp.Coordinator.Host, resp.Coordinator.Port}, nil
}

// listGroups is listAllConsumerGroupsFlattened: ListGroups on every broker, "consumer" groups.
func (s *kafkaConsumerGroupService) listGroups() ([]string, error) {
	md, err := s.metadata(nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, b := range md.Brokers {
		resp := &protocol.ListGroupsResponse{Version: 0}
		if err := roundTrip(b.Host, b.Port, s.timeout, &protocol.ListGroupsRequest{Version: 0}, resp); err != nil || resp.ErrorCode != 0 {
			continue // Kafka logs at debug and goes on
		}
		for _, g := range resp.Groups {
			if g.ProtocolType == protocol.ConsumerProtocolType {
				out = append(out, g.GroupID)
			}
		}
	}
	return out, nil
}

type consumerSummary struct {
	consumerID, clientID, host string
	assignment                 []common.TopicPartition
}

func (s *kafkaConsumerGroupService) describeGroup(group string) (string, []row, bool, error) {
	coordinator, err := s.findCoordinator(group)
	if err != nil {
		return "", nil, false, err
	}
	dresp := &protocol.DescribeGroupsResponse{Version: 0}
	if err := roundTrip(coordinator.host, coordinator.port, s.timeout, &protocol.DescribeGroupsRequest{Version: 0, GroupIds: []string{group}}, dresp); err != nil {
		return "", nil, false, err
	}
	var md *protocol.DescribeGroupsResponseGroup
	for i := range dresp.Groups {
		if dresp.Groups[i].GroupID == group {
			md = &dresp.Groups[i]
		}
	}
	if md == nil {
		return "", nil, false, fmt.Errorf("Response from broker contained no metadata for group %s", group)
	}
	if md.State != "Dead" && md.State != "Empty" && md.ProtocolType != protocol.ConsumerProtocolType {
		return "", nil, false, fmt.Errorf("Consumer Group %s with protocol type '%s' is not a valid consumer group", group, md.ProtocolType)
	}
	if md.ErrorCode != 0 {
		return "", nil, false, protocol.ErrorForCode(md.ErrorCode)
	}
	var consumers []consumerSummary
	for _, m := range md.Members {
		cs := consumerSummary{consumerID: m.MemberID, clientID: m.ClientID, host: m.ClientHost}
		if md.State == "Stable" {
			var a protocol.ConsumerProtocolAssignment
			if err := a.ReadFrom(m.MemberAssignment); err != nil {
				return "", nil, false, err
			}
			cs.assignment = a.Partitions
		}
		consumers = append(consumers, cs)
	}
	offsets, err := s.listGroupOffsets(group, coordinator)
	if err != nil {
		return "", nil, false, err
	}
	var rows []row
	if len(offsets) > 0 {
		sort.SliceStable(consumers, func(i, j int) bool { return len(consumers[i].assignment) > len(consumers[j].assignment) })
		assigned := map[common.TopicPartition]bool{}
		for _, c := range consumers {
			if len(c.assignment) == 0 {
				rows = append(rows, memberRow(c.consumerID, c.host, c.clientID))
				continue
			}
			tps := append([]common.TopicPartition(nil), c.assignment...)
			sort.SliceStable(tps, func(i, j int) bool { return tps[i].Partition < tps[j].Partition })
			for _, tp := range tps {
				assigned[tp] = true
				o, ok := offsets[tp]
				if r, keep := describePartition(tp.Topic, tp.Partition, o, ok, s.logEndOffset(tp), c.consumerID, c.host, c.clientID); keep {
					rows = append(rows, r)
				}
			}
		}
		var rest []common.TopicPartition
		for tp := range offsets {
			if !assigned[tp] {
				rest = append(rest, tp)
			}
		}
		sort.Slice(rest, func(i, j int) bool {
			if rest[i].Topic != rest[j].Topic {
				return rest[i].Topic < rest[j].Topic
			}
			return rest[i].Partition < rest[j].Partition
		})
		for _, tp := range rest {
			if r, keep := describePartition(tp.Topic, tp.Partition, offsets[tp], true, s.logEndOffset(tp), missing, missing, missing); keep {
				rows = append(rows, r)
			}
		}
	}
	return md.State, rows, true, nil
}

// listGroupOffsets is OffsetFetch v2 for all of the group's partitions.
func (s *kafkaConsumerGroupService) listGroupOffsets(group string, coordinator node) (map[common.TopicPartition]int64, error) {
	resp := &protocol.OffsetFetchResponse{Version: 2}
	if err := roundTrip(coordinator.host, coordinator.port, s.timeout, &protocol.OffsetFetchRequest{Version: 2, GroupID: group}, resp); err != nil {
		return nil, err
	}
	if resp.ErrorCode != 0 {
		return nil, protocol.ErrorForCode(resp.ErrorCode)
	}
	out := map[common.TopicPartition]int64{}
	for _, t := range resp.Responses {
		for _, p := range t.PartitionResponses {
			if p.ErrorCode != 0 {
				return nil, protocol.ErrorForCode(p.ErrorCode)
			}
			out[common.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = p.Offset
		}
	}
	return out, nil
}

// logEndOffset finds the partition's leader and asks it (unknown when there is none).
func (s *kafkaConsumerGroupService) logEndOffset(tp common.TopicPartition) logEndOffsetResult {
	md, err := s.metadata([]string{tp.Topic})
	if err != nil {
		return logEndOffsetResult{}
	}
	brokers := map[int32]protocol.MetadataResponseBroker{}
	for _, b := range md.Brokers {
		brokers[b.NodeID] = b
	}
	for _, t := range md.TopicMetadata {
		if t.Topic != tp.Topic {
			continue
		}
		for _, p := range t.PartitionMetadata {
			if p.PartitionID != tp.Partition {
				continue
			}
			b, ok := brokers[p.Leader]
			if !ok {
				return logEndOffsetResult{}
			}
			leo, err := listOffsetLatest(b.Host, b.Port, s.timeout, tp)
			if err != nil {
				return logEndOffsetResult{}
			}
			return logEndOffsetResult{value: leo, known: true}
		}
	}
	return logEndOffsetResult{}
}
