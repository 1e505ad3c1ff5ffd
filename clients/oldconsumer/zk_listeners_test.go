package oldconsumer

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/zk/zktest"
)

// recordingListener records the rebalance callbacks.
type recordingListener struct {
	mu       sync.Mutex
	released []string
	started  []string
}

func (l *recordingListener) BeforeReleasingPartitions(owned map[string]map[int32]struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.released = append(l.released, fmt.Sprint(len(owned["grow"])))
}

func (l *recordingListener) BeforeStartingFetchers(consumerID string, global map[string]map[int32]ConsumerThreadId) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.started = append(l.started, fmt.Sprintf("%s:%d", consumerID, len(global["grow"])))
}

func (l *recordingListener) snapshot() ([]string, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.released...), append([]string(nil), l.started...)
}

// TestTopicPartitionChangeTriggersRebalance: partitions added to a subscribed topic (its
// /brokers/topics znode changes) make ZKTopicPartitionChangeListener trigger a rebalance that
// claims them; the ConsumerRebalanceListener hears both steps of each rebalance, and a listener
// set after the streams exist is refused.
func TestTopicPartitionChangeTriggersRebalance(t *testing.T) {
	connect := zktest.Chroot(t)
	b := startBroker(t, connect, nil)
	b.createTopic(t, "grow", 2)
	c := newConnector(t, consumerProps(connect, "gg", map[string]string{"consumer.id": "x"}), Deps{})
	l := &recordingListener{}
	if err := c.SetConsumerRebalanceListener(l); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateMessageStreams(map[string]int{"grow": 1}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetConsumerRebalanceListener(l); err == nil {
		t.Fatal("a listener set after the streams must be refused")
	}
	waitUntil(t, 20*time.Second, "owns 2", func() bool { return fmt.Sprint(c.TopicRegistry()["grow"]) == "[0 1]" })
	if err := admin.NewAdminUtils(b.zk, nil, nil).AddPartitions("grow", 4, "", true, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	b.waitForLeaders(t, "grow", 4)
	waitUntil(t, 30*time.Second, "owns the new partitions too", func() bool { return fmt.Sprint(c.TopicRegistry()["grow"]) == "[0 1 2 3]" })
	released, started := l.snapshot()
	if len(released) < 2 || released[0] != "0" || len(started) < 2 || started[0] != "gg_x:2" || started[len(started)-1] != "gg_x:4" {
		t.Fatalf("callbacks: released %v, started %v", released, started)
	}
}
