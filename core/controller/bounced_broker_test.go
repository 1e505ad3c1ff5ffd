package controller

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zktest"
)

// TestRestartedBrokerIsSeenBehindASlowEventGoroutine: 20 times, a broker "process" dies and a new
// one (empty, on a new port) registers the same id right away, as a broker restarted after
// SIGKILL does once its old session's registration is gone; the controller's ZooKeeper event
// goroutine is 300 ms behind on /brokers/ids, so by the time it reads the children the id is
// back and the id sets before and after are equal. The controller must still see the restart
// (the registration's czxid changed) and handle it as a failure plus a startup: every partition
// with a replica on the broker ends with the new process told to lead or follow it.
func TestRestartedBrokerIsSeenBehindASlowEventGoroutine(t *testing.T) {
	cl := newCluster(t, 1, 2, 3)
	var delayed atomic.Int32
	slow := zkclient.WithEventHook(func(desc string) {
		if strings.HasSuffix(desc, "/brokers/ids") {
			delayed.Add(1)
			time.Sleep(300 * time.Millisecond)
		}
	})
	c := startController(t, cl.connect, 10, nil, slow)
	waitActive(t, c)
	const topic = "bounce"
	assignment := map[int32][]int32{0: {1, 2}, 1: {2, 3}, 2: {3, 1}, 3: {1, 3}}
	cl.createTopic(topic, assignment)
	zktest.WaitUntilTrue(t, func() bool {
		for p := range assignment {
			if l, ok := cl.state(topic, p); !ok || l.LeaderAndIsr.Leader < 0 {
				return false
			}
		}
		return true
	}, "leaders for every partition", waitTimeout)

	for cycle := 0; cycle < 20; cycle++ {
		id := int32(cycle%3) + 1
		old := cl.brokers[id]
		old.close() // the process is gone
		cl.deregister(id)
		fresh := newFakeBroker(t, id)
		cl.brokers[id] = fresh
		cl.register(id) // the new process, within a millisecond of the old registration's end
		var mine []int32
		for p, rs := range assignment {
			if containsID(rs, id) {
				mine = append(mine, p)
			}
		}
		ok := zktest.PollUntil(func() bool {
			got := fresh.leaderAndIsrStates()
			for _, p := range mine {
				s, ok := got[common.TopicPartition{Topic: topic, Partition: p}]
				if !ok {
					return false
				}
				zs, ok := cl.state(topic, p)
				// what the new process was told is the partition's current state
				if !ok || zs.LeaderAndIsr.Leader != s.Leader || zs.LeaderAndIsr.LeaderEpoch != s.LeaderEpoch || zs.LeaderAndIsr.Leader < 0 {
					return false
				}
			}
			return true
		}, waitTimeout)
		if !ok {
			t.Fatalf("cycle %d: the restarted broker %d was not told to lead or follow its partitions %v (got %v)",
				cycle, id, mine, fresh.leaderAndIsrStates())
		}
	}
	t.Logf("%d /brokers/ids events, each delivered 300 ms late", delayed.Load())
}
