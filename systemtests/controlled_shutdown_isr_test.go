package systemtests

import (
	"sync"
	"testing"
	"time"

	"github.com/zkafka/zkafka/zk/zkutils"
)

// isrSnapshot is what isrWatch saw at one moment: whether the broker was registered, and the
// partitions whose ISR held it and that it led.
type isrSnapshot struct {
	at          time.Time
	registered  bool
	inIsr, lead []int32
}

// isrWatch polls a broker's registration and every ISR of a topic (every 5 ms) until the
// registration is gone or stop is called.
type isrWatch struct {
	snaps []isrSnapshot
	stop  chan struct{}
	wg    sync.WaitGroup
}

func watchIsr(t *testing.T, c *Cluster, id int32, topic string, parts int32) *isrWatch {
	t.Helper()
	z, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	w := &isrWatch{stop: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for {
			s := isrSnapshot{at: time.Now()}
			s.registered, _ = z.PathExists(zkutils.BrokerIdPath(id))
			for p := int32(0); p < parts; p++ {
				st, ok, err := z.GetLeaderIsrAndEpochForPartition(topic, p)
				if err != nil || !ok {
					continue
				}
				if st.LeaderAndIsr.Leader == id {
					s.lead = append(s.lead, p)
				}
				if containsInt32(st.LeaderAndIsr.Isr, id) {
					s.inIsr = append(s.inIsr, p)
				}
			}
			w.snaps = append(w.snaps, s)
			if !s.registered {
				return
			}
			select {
			case <-w.stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return w
}

// wait returns the snapshots once the registration is gone (or after stop).
func (w *isrWatch) wait() []isrSnapshot {
	w.wg.Wait()
	return w.snaps
}

// checkLeftIsrForGood: item 2 of issue 11. Once the controller had taken the stopping broker out
// of every ISR, it never came back while it was still registered, and it was out of every ISR
// when its registration disappeared. 0.10.2 sets KafkaServer.isShuttingDown before asking the
// controller, and ReplicaManager.makeFollowers starts no fetcher while it is set; when the flag
// was set only later, the stopping broker fetched as a follower of the partitions it had just
// given up and re-entered their ISRs, and acks=all produces waited for a broker about to vanish.
func checkLeftIsrForGood(t *testing.T, id int32, t0 time.Time, snaps []isrSnapshot) {
	t.Helper()
	out, rejoined := -1, 0
	for i, s := range snaps {
		if !s.registered {
			break
		}
		if out < 0 && len(s.inIsr) == 0 && len(s.lead) == 0 {
			out = i
		}
		if out >= 0 && len(s.inIsr) > 0 {
			rejoined++
			if rejoined <= 3 {
				t.Errorf("%v after the SIGTERM, broker %d (still registered) is back in the ISR of partitions %v",
					s.at.Sub(t0).Round(time.Millisecond), id, s.inIsr)
			}
		}
	}
	if out < 0 {
		for _, s := range snaps {
			t.Logf("%v registered %v in ISR of %v, leads %v", s.at.Sub(t0).Round(time.Millisecond), s.registered, s.inIsr, s.lead)
		}
		t.Errorf("broker %d never left every ISR before its registration disappeared (%d snapshots)", id, len(snaps))
		return
	}
	t.Logf("broker %d: out of every ISR %v after the SIGTERM, registration gone %v after it (%d snapshots)",
		id, snaps[out].at.Sub(t0).Round(time.Millisecond), snaps[len(snaps)-1].at.Sub(t0).Round(time.Millisecond), len(snaps))
}
