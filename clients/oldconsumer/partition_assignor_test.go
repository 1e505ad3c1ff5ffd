package oldconsumer

import (
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
)

func threads(consumer string, n int) []ConsumerThreadId {
	out := make([]ConsumerThreadId, n)
	for i := range out {
		out[i] = ConsumerThreadId{Consumer: consumer, ThreadID: i}
	}
	return out
}

// owned renders one consumer's ownership as "t-p=thread" lines in order.
func owned(o PartitionOwnership) []string {
	var out []string
	for tp, id := range o {
		out = append(out, fmt.Sprintf("%s=%s", tp, id))
	}
	sort.Strings(out)
	return out
}

// TestRangeAssignorKafkaExample is the example of RangeAssignor's doc: two consumers with two
// streams each and five partitions give p0,p1 -> C1-0, p2 -> C1-1, p3 -> C2-0, p4 -> C2-1.
func TestRangeAssignorKafkaExample(t *testing.T) {
	all := append(threads("C1", 2), threads("C2", 2)...)
	ctx := &AssignmentContext{ConsumerID: "C1", MyTopicThreadIds: map[string][]ConsumerThreadId{"t": threads("C1", 2)},
		ConsumersForTopic: map[string][]ConsumerThreadId{"t": all}, PartitionsForTopic: map[string][]int32{"t": {0, 1, 2, 3, 4}},
		Consumers: []string{"C1", "C2", "C3"}}
	got := CreatePartitionAssignor("range", nil).Assign(ctx)
	want := map[string][]string{
		"C1": {"t-0=C1-0", "t-1=C1-0", "t-2=C1-1"},
		"C2": {"t-3=C2-0", "t-4=C2-1"},
		"C3": nil,
	}
	for c, w := range want {
		if g := owned(got[c]); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: got %v, want %v", c, g, w)
		}
	}
	if len(got) != 3 {
		t.Errorf("every member, also one without partitions, is in the assignment: %v", got)
	}
}

// TestRangeAssignorTwelveByThree: three single-stream members split 12 partitions 4/4/4 in
// ranges.
func TestRangeAssignorTwelveByThree(t *testing.T) {
	var all []ConsumerThreadId
	for _, c := range []string{"g_a", "g_b", "g_c"} {
		all = append(all, threads(c, 1)...)
	}
	parts := make([]int32, 12)
	for i := range parts {
		parts[i] = int32(i)
	}
	ctx := &AssignmentContext{ConsumerID: "g_b", MyTopicThreadIds: map[string][]ConsumerThreadId{"t": threads("g_b", 1)},
		ConsumersForTopic: map[string][]ConsumerThreadId{"t": all}, PartitionsForTopic: map[string][]int32{"t": parts},
		Consumers: []string{"g_a", "g_b", "g_c"}}
	got := (&RangeAssignor{log: discardEntry()}).Assign(ctx)
	if g := owned(got["g_b"]); !reflect.DeepEqual(g, []string{"t-4=g_b-0", "t-5=g_b-0", "t-6=g_b-0", "t-7=g_b-0"}) {
		t.Fatalf("g_b: %v", g)
	}
}

// TestRoundRobinAssignor follows the hash order of "[topic,partition]" (Java's String.hashCode:
// "[t,0]" = 87540032 < "[t,1]" = 87540063 < ... < "[u,0]" = 87569823 < ...) and skips threads
// not subscribed to a partition's topic.
func TestRoundRobinAssignor(t *testing.T) {
	if h := topicAndPartitionHash(common.TopicPartition{Topic: "t", Partition: 0}); h != 87540032 {
		t.Fatalf("hash of [t,0] = %d, Java says 87540032", h)
	}
	parts := []int32{0, 1, 2, 3, 4, 5}
	ctx := &AssignmentContext{ConsumerID: "c1",
		ConsumersForTopic:  map[string][]ConsumerThreadId{"t": {{"c1", 0}, {"c2", 0}}, "u": {{"c2", 0}}},
		PartitionsForTopic: map[string][]int32{"t": parts, "u": parts},
		Consumers:          []string{"c1", "c2"}}
	got := CreatePartitionAssignor("roundrobin", nil).Assign(ctx)
	want := map[string][]string{
		"c1": {"t-0=c1-0", "t-2=c1-0", "t-4=c1-0"},
		"c2": {"t-1=c2-0", "t-3=c2-0", "t-5=c2-0", "u-0=c2-0", "u-1=c2-0", "u-2=c2-0", "u-3=c2-0", "u-4=c2-0", "u-5=c2-0"},
	}
	for c, w := range want {
		if g := owned(got[c]); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: got %v, want %v", c, g, w)
		}
	}
	// Identical subscriptions: counts within one of each other, and partitions alternate.
	ctx.ConsumersForTopic["u"] = []ConsumerThreadId{{"c1", 0}, {"c2", 0}}
	got = CreatePartitionAssignor("roundrobin", nil).Assign(ctx)
	if g := owned(got["c1"]); !reflect.DeepEqual(g, []string{"t-0=c1-0", "t-2=c1-0", "t-4=c1-0", "u-0=c1-0", "u-2=c1-0", "u-4=c1-0"}) {
		t.Errorf("c1: %v", g)
	}
}
