package protocol

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol/schema"
	"github.com/zkafka/zkafka/clients/protocol/types"
)

func TestConsumerProtocolSubscriptionGolden(t *testing.T) {
	s := &ConsumerProtocolSubscription{Version: 0, Topics: []string{"a", "bc"}, UserData: []byte{}}
	want := unhex(t, `
		0000                 # version 0
		00000002 0001 61     # topics: "a"
		0002 6263            #         "bc"
		00000000             # user_data: empty, not null (what the Java client sends)`)
	if got := s.AppendTo(nil); !bytes.Equal(got, want) {
		t.Fatalf("%x", got)
	}
	var back ConsumerProtocolSubscription
	if err := back.ReadFrom(want); err != nil || !reflect.DeepEqual(&back, s) {
		t.Fatalf("%+v %v", back, err)
	}
	// Equivalent to the schema table: header + SUBSCRIPTION_V0.
	if _, n, err := schema.SubscriptionV0.Read(want[2:]); err != nil || n != len(want)-2 {
		t.Fatalf("schema read %d: %v", n, err)
	}
	// A newer version is read as v0 with its extra fields ignored; a negative one is refused.
	newer := append(append([]byte{0, 3}, want[2:]...), 0xee, 0xee)
	if err := back.ReadFrom(newer); err != nil || back.Version != 3 || len(back.Topics) != 2 {
		t.Fatalf("v3: %+v %v", back, err)
	}
	if err := back.ReadFrom(append([]byte{0xff, 0xff}, want[2:]...)); err == nil {
		t.Fatal("negative version accepted")
	}
	// null user data
	s.UserData = nil
	if err := back.ReadFrom(s.AppendTo(nil)); err != nil || back.UserData != nil {
		t.Fatalf("null user_data: %v", err)
	}
}

func TestConsumerProtocolAssignmentGolden(t *testing.T) {
	a := &ConsumerProtocolAssignment{Partitions: []common.TopicPartition{{Topic: "t", Partition: 0}, {Topic: "u", Partition: 5}, {Topic: "t", Partition: 2}}, UserData: []byte{}}
	want := unhex(t, `
		0000                          # version 0
		00000002                      # 2 topics
		0001 74 00000002 00000000 00000002   # "t": [0, 2]
		0001 75 00000001 00000005     # "u": [5]
		00000000                      # user_data empty`)
	if got := a.AppendTo(nil); !bytes.Equal(got, want) {
		t.Fatalf("%x", got)
	}
	var back ConsumerProtocolAssignment
	if err := back.ReadFrom(want); err != nil {
		t.Fatal(err)
	}
	wantFlat := []common.TopicPartition{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 2}, {Topic: "u", Partition: 5}}
	if !reflect.DeepEqual(back.Partitions, wantFlat) || back.UserData == nil {
		t.Fatalf("%+v", back)
	}
	if !bytes.Equal(back.AppendTo(nil), want) {
		t.Fatal("re-encoding differs")
	}
	v, n, err := schema.AssignmentV0.Read(want[2:])
	if err != nil || n != len(want)-2 {
		t.Fatalf("schema read %d: %v", n, err)
	}
	if re, err := schema.AssignmentV0.Write(nil, v); err != nil || !bytes.Equal(re, want[2:]) {
		t.Fatalf("schema write: %v", err)
	}
	if _, _, err := types.NewSchema(types.NewField("version", types.INT16)).Read(nil); err == nil {
		t.Fatal("empty header accepted")
	}
	// The zero-length assignment the coordinator stores for members the leader left out.
	if err := back.ReadFrom(nil); err == nil {
		t.Fatal("zero-length assignment accepted")
	}
}
