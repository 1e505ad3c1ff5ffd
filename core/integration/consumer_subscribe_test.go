package integration

import (
	"regexp"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/admin"
)

// recordingListener keeps what a ConsumerRebalanceListener was told.
type recordingListener struct {
	mu       sync.Mutex
	assigned [][]common.TopicPartition
	revoked  [][]common.TopicPartition
}

func (l *recordingListener) OnPartitionsAssigned(p []common.TopicPartition) {
	l.mu.Lock()
	l.assigned = append(l.assigned, p)
	l.mu.Unlock()
}

func (l *recordingListener) OnPartitionsRevoked(p []common.TopicPartition) {
	l.mu.Lock()
	l.revoked = append(l.revoked, p)
	l.mu.Unlock()
}

// A pattern subscription picks up a topic created later (matching the whole name only), and
// the group rebalances when a subscribed topic gains partitions; the listener hears each
// revocation and assignment.
func TestConsumerPatternSubscriptionAndPartitionGrowth(t *testing.T) {
	b := startTestBroker(t, nil)
	b.createTopic(t, "pat-a", 1, nil)
	b.createTopic(t, "xpat-a", 1, nil)
	c := newTestConsumer(t, b.addr, "group.id", "gp", "metadata.max.age.ms", "500")
	l := &recordingListener{}
	if err := c.SubscribePattern(regexp.MustCompile(`pat-.*`), l); err != nil {
		t.Fatal(err)
	}
	waitAssignment := func(want ...string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			if _, err := c.Poll(50 * time.Millisecond); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tp := range c.Assignment() {
				got = append(got, tp.String())
			}
			sort.Strings(got)
			if equalStrings(got, want) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("assignment %v, want %v", got, want)
			}
		}
	}
	waitAssignment("pat-a-0")
	b.createTopic(t, "pat-b", 1, nil)
	waitAssignment("pat-a-0", "pat-b-0")
	if err := admin.NewAdminUtils(b.srv.ZkUtils(), nil, nil).AddPartitions("pat-b", 3, "", true, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	waitAssignment("pat-a-0", "pat-b-0", "pat-b-1", "pat-b-2")
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.assigned) < 3 || len(l.revoked) < 3 {
		t.Fatalf("listener: assigned %v revoked %v", l.assigned, l.revoked)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
