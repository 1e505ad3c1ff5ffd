package timer

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
)

func bucketAt(exp int64) *TimerTaskList {
	var c atomic.Int32
	l := newTimerTaskList(&c)
	l.setExpiration(exp)
	return l
}

func TestDelayQueueOrderAndDue(t *testing.T) {
	clock := common.NewMockTime(0)
	q := newDelayQueue(clock)
	for _, exp := range []int64{30, 10, 20, 10, 50} {
		q.offer(bucketAt(exp))
	}
	if q.poll() != nil {
		t.Fatal("nothing is due at 0")
	}
	clock.Advance(25 * time.Millisecond)
	var got []int64
	for l := q.poll(); l != nil; l = q.poll() {
		got = append(got, l.getExpiration())
	}
	if want := []int64{10, 10, 20}; len(got) != len(want) || got[0] != 10 || got[1] != 10 || got[2] != 20 {
		t.Fatalf("due buckets at 25 = %v, want %v", got, want)
	}
	clock.Advance(100 * time.Millisecond)
	if l := q.pollTimeout(0); l == nil || l.getExpiration() != 30 {
		t.Fatalf("pollTimeout(0) = %v", l)
	}
	if q.size() != 1 {
		t.Fatalf("size = %d", q.size())
	}
}

func TestDelayQueuePollTimesOut(t *testing.T) {
	q := newDelayQueue(common.SystemTime{})
	start := time.Now()
	if l := q.pollTimeout(30); l != nil {
		t.Fatal("empty queue returned a bucket")
	}
	if el := time.Since(start); el < 30*time.Millisecond {
		t.Fatalf("returned after %v, before the 30ms timeout", el)
	}
}

// TestDelayQueueWakesForEarlierBucket: a poller waiting on a far bucket must notice a bucket that
// is offered later but is due sooner.
func TestDelayQueueWakesForEarlierBucket(t *testing.T) {
	clock := common.SystemTime{}
	q := newDelayQueue(clock)
	nowMs := clock.Nanoseconds() / 1e6
	q.offer(bucketAt(nowMs + 60_000))
	got := make(chan *TimerTaskList)
	go func() { got <- q.pollTimeout(10_000) }()
	time.Sleep(20 * time.Millisecond)
	near := bucketAt(clock.Nanoseconds()/1e6 + 20)
	start := time.Now()
	q.offer(near)
	select {
	case l := <-got:
		if l != near {
			t.Fatal("polled the wrong bucket")
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Fatalf("took %v", el)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("poller did not wake for the earlier bucket")
	}
}

func TestDelayQueueCloseWakesPoller(t *testing.T) {
	q := newDelayQueue(common.SystemTime{})
	got := make(chan *TimerTaskList)
	go func() { got <- q.pollTimeout(60_000) }()
	time.Sleep(10 * time.Millisecond)
	q.close()
	select {
	case l := <-got:
		if l != nil {
			t.Fatal("closed queue returned a bucket")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("close did not wake the poller")
	}
	if q.pollTimeout(60_000) != nil {
		t.Fatal("poll after close must return nil at once")
	}
}
