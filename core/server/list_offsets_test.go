package server

import (
	"fmt"
	"testing"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

func TestApisListOffsets(t *testing.T) {
	e := newApisEnv(t, nil)
	e.lead(t, "t", 1, []int32{0})
	e.handle(produceReq("t", 1, map[int32]record.Records{0: recordSet(t, 6, record.NONE)}), "p")
	e.ch.take(t)
	v0 := func(ts int64, max int32) protocol.ListOffsetResponseTopicPartition {
		e.handle(&protocol.ListOffsetRequest{Version: 0, ReplicaID: -1, Topics: []protocol.ListOffsetRequestTopic{{Topic: "t",
			Partitions: []protocol.ListOffsetRequestTopicPartition{{Partition: 0, Timestamp: ts, MaxNumOffsets: max}}}}}, "c")
		return decode(t, e.ch.take(t), protocol.ListOffsets, 0).(*protocol.ListOffsetResponse).Responses[0].PartitionResponses[0]
	}
	if p := v0(-1, 10); p.ErrorCode != 0 || fmt.Sprint(p.Offsets) != "[6 0]" {
		t.Errorf("v0 latest %+v", p)
	}
	if p := v0(-2, 10); fmt.Sprint(p.Offsets) != "[0]" {
		t.Errorf("v0 earliest %+v", p)
	}
	v1 := func(parts ...protocol.ListOffsetRequestTopicPartition) []protocol.ListOffsetResponseTopicPartition {
		e.handle(&protocol.ListOffsetRequest{Version: 1, ReplicaID: -1, Topics: []protocol.ListOffsetRequestTopic{{Topic: "t", Partitions: parts}}}, "c")
		return decode(t, e.ch.take(t), protocol.ListOffsets, 1).(*protocol.ListOffsetResponse).Responses[0].PartitionResponses
	}
	if p := v1(protocol.ListOffsetRequestTopicPartition{Timestamp: -1})[0]; p.Offset != 6 || p.Timestamp != -1 {
		t.Errorf("v1 latest %+v", p)
	}
	if p := v1(protocol.ListOffsetRequestTopicPartition{Timestamp: -2})[0]; p.Offset != 0 {
		t.Errorf("v1 earliest %+v", p)
	}
	// recordSet stamps message i with 1_700_000_000_000 + i.
	if p := v1(protocol.ListOffsetRequestTopicPartition{Timestamp: 1_700_000_000_003})[0]; p.Offset != 3 || p.Timestamp != 1_700_000_000_003 {
		t.Errorf("v1 by time %+v", p)
	}
	if p := v1(protocol.ListOffsetRequestTopicPartition{Timestamp: 1_800_000_000_000})[0]; p.ErrorCode != 0 || p.Offset != -1 {
		t.Errorf("v1 after the last message %+v", p)
	}
	ps := v1(protocol.ListOffsetRequestTopicPartition{Timestamp: -1}, protocol.ListOffsetRequestTopicPartition{Timestamp: -2})
	if len(ps) != 2 || ps[0].ErrorCode != protocol.ErrInvalidRequest.Code || ps[1].ErrorCode != protocol.ErrInvalidRequest.Code {
		t.Errorf("duplicate partition %+v", ps)
	}
	e.handle(&protocol.ListOffsetRequest{Version: 1, ReplicaID: -1, Topics: []protocol.ListOffsetRequestTopic{{Topic: "x",
		Partitions: []protocol.ListOffsetRequestTopicPartition{{Partition: 0, Timestamp: -1}}}}}, "c")
	if p := decode(t, e.ch.take(t), protocol.ListOffsets, 1).(*protocol.ListOffsetResponse).Responses[0].PartitionResponses[0]; p.ErrorCode != protocol.ErrUnknownTopicOrPartition.Code {
		t.Errorf("unknown topic %+v", p)
	}
}
