package purgatory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
)

// stressOp counts every way it can finish, so the test can prove each operation finished once.
type stressOp struct {
	DelayedOperation
	keys        []DelayedOperationKey
	addedNs     int64 // monotonic, just before TryCompleteElseWatch
	completeAt  int64 // offset in ns from addedNs at which a completer makes it completable; -1: never
	completable atomic.Bool

	tryWins     atomic.Int32 // TryComplete's ForceComplete returned true
	completions atomic.Int32 // OnComplete calls
	expirations atomic.Int32 // OnExpiration calls
	expiredNs   atomic.Int64 // monotonic time of the (first) OnExpiration

	finished *atomic.Int64 // shared count of operations whose OnComplete ran
}

var stressClock = common.SystemTime{}

func (o *stressOp) TryComplete() bool {
	if o.completable.Load() && o.ForceComplete() {
		o.tryWins.Add(1)
		return true
	}
	return false
}

func (o *stressOp) OnComplete() {
	o.completions.Add(1)
	o.finished.Add(1)
}

func (o *stressOp) OnExpiration() {
	o.expiredNs.CompareAndSwap(0, stressClock.Nanoseconds())
	o.expirations.Add(1)
}

// TestManyOperationsCompleteOrExpireExactlyOnce is the timing-wheel acceptance test: 100,000
// operations (20,000 under -race) with random timeouts of 0..2000 ms, each watched under one to
// three of 10,000 keys. Half are never completable and must expire; the other half are made
// completable by four completer goroutines at a random moment between 0 and 110% of their
// timeout and completed through CheckAndComplete, racing with expiry near the deadline.
//
// Every operation must get OnComplete exactly once, and either one TryComplete win or one
// expiry, never both; both outcomes of the race must occur. Lateness is measured on the monotonic
// clock from the true deadline (add time + timeout):
//   - no expiry may come a whole tick (1 ms) early. The wheel works in whole milliseconds from a
//     truncated add time, exactly as Kafka's, so up to one tick early is by design;
//   - the median must be within tick + 5 ms, p99 within tick + 20 ms, and the maximum within
//     tick + 100 ms (p99 50 ms and maximum 250 ms under -race), each plus the same percentile of a
//     control: a goroutine doing 1 ms time.Sleeps during the test. The control absorbs what the
//     wheel cannot be blamed for (CPU starvation on a shared 2-core machine, GC pauses). A wheel
//     that parked tasks in the wrong bucket would be late by a whole bucket of an upper wheel
//     (20 or 400 ms) for a large share of expiries. What remains in the tail is mostly Kafka's
//     own cost: when a 400 ms overflow bucket comes due, its ~20,000 entries are re-added in one
//     go (1-3 ms on an idle core, up to ~20 ms on a busy one), and expiries due meanwhile wait;
//   - exactly-once is checked on every attempt; a timing miss alone is retried (up to five
//     attempts, none started after 7 s), because one burst of load from other processes can
//     spoil an attempt while a broken wheel misses on every one. The test fails on timing if an
//     attempt missed while the machine was quiet (control p99 <= 10 ms). If every attempt ran on
//     an overloaded machine, the timing is logged but not asserted: no bound in milliseconds
//     means anything there.
//
// The distribution is logged. ZKAFKA_LONG=1 runs 300,000 operations instead and checks only
// exactly-once (that many saturate two cores, so lateness is reported, not asserted).
func TestManyOperationsCompleteOrExpireExactlyOnce(t *testing.T) {
	n := stressOps(100_000)
	p99Slack, maxSlack := 20*time.Millisecond, 100*time.Millisecond
	if raceEnabled {
		// The race detector makes every memory access several times slower.
		n = stressOps(20_000)
		p99Slack, maxSlack = 50*time.Millisecond, 250*time.Millisecond
	}
	// Exactly-once is checked on every attempt and fails at once. A timing miss is retried, up to
	// five attempts (about 2.5 s each) but none started after 7 s.
	const attempts = 5
	start := time.Now()
	var lastErr error
	quietMisses := 0
	for attempt := 1; attempt <= attempts && time.Since(start) < 7*time.Second; attempt++ {
		quiet, err := runStress(t, n, p99Slack, maxSlack)
		if err == nil {
			return
		}
		if soak() {
			// 300,000 operations with four completers saturate a 2-core machine: the soak checks
			// exactly-once only and reports the timing.
			t.Logf("soak: timing not asserted: %v", err)
			return
		}
		lastErr = err
		if quiet {
			quietMisses++
		}
		t.Logf("attempt %d (quiet machine: %v): %v", attempt, quiet, err)
	}
	if quietMisses > 0 {
		t.Fatalf("timing missed on %d attempt(s) while the machine was quiet; last: %v", quietMisses, lastErr)
	}
	t.Logf("every attempt ran on an overloaded machine (control p99 > %v): timing reported, not asserted", quietControlP99)
}

// quietControlP99 is the control's p99 oversleep up to which the machine counts as quiet enough
// for the timing bounds to be meaningful. On the 2-core development machine it was 3-8 ms with a
// load average up to about 6, and 20-50 ms at a load average of 10, where no process gets
// enough CPU to keep millisecond deadlines (and lock holders get preempted by the kernel).
const quietControlP99 = 10 * time.Millisecond

// runStress runs one attempt; it fails t on any exactly-once violation and returns an error if
// only the timing bounds were missed; quiet says whether the machine was quiet meanwhile.
func runStress(t *testing.T, n int, p99Slack, maxSlack time.Duration) (quiet bool, timing error) {
	const (
		numKeys    = 10_000
		maxDelayMs = 2000
		completers = 4
		adders     = 2
		tick       = time.Millisecond
	)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d, %d operations", seed, n)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))

	p := NewDelayedOperationPurgatory[*stressOp]("stress", 0, 1000, stressClock, nil)
	shutdown := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	}
	var shutdownOnce sync.Once
	defer shutdownOnce.Do(shutdown)

	allKeys := make([]DelayedOperationKey, numKeys)
	for i := range allKeys {
		allKeys[i] = TopicPartitionOperationKey{Topic: fmt.Sprintf("t%d", i%100), Partition: int32(i / 100)}
	}
	ops := make([]*stressOp, n)
	var finished atomic.Int64
	for i := range ops {
		delay := rng.Int64N(maxDelayMs + 1)
		op := &stressOp{completeAt: -1, finished: &finished}
		op.Init(delay, op)
		for k := 0; k < 1+rng.IntN(3); k++ {
			op.keys = append(op.keys, allKeys[rng.IntN(numKeys)])
		}
		if i%2 == 1 {
			op.completeAt = rng.Int64N(delay*int64(time.Millisecond)*11/10 + 1)
		}
		ops[i] = op
	}

	// The control: how late does a plain 1 ms time.Sleep wake up on this machine right now?
	// Lateness the wheel cannot be blamed for (CPU starvation, GC) shows up here too.
	var control []time.Duration
	controlStop, controlDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(controlDone)
		for {
			select {
			case <-controlStop:
				return
			default:
			}
			t0 := stressClock.Nanoseconds()
			time.Sleep(tick)
			control = append(control, time.Duration(stressClock.Nanoseconds()-t0)-tick)
		}
	}()
	var controlOnce sync.Once
	stopControl := func() { controlOnce.Do(func() { close(controlStop); <-controlDone }) }
	defer stopControl()

	// Add from several goroutines at once.
	start := time.Now()
	var wg sync.WaitGroup
	for a := 0; a < adders; a++ {
		wg.Add(1)
		go func(a int) {
			defer wg.Done()
			for i := a; i < n; i += adders {
				op := ops[i]
				op.addedNs = stressClock.Nanoseconds()
				if p.TryCompleteElseWatch(op, op.keys) {
					t.Errorf("op %d completed while nothing was completable", i)
				}
				if i%64 == a {
					runtime.Gosched() // let the reaper and the executor in, as a real request handler would
				}
			}
		}(a)
	}
	wg.Wait()
	t.Logf("added %d operations in %v", n, time.Since(start))

	// Completers: each takes a share of the completable half, in order of their completion time.
	for c := 0; c < completers; c++ {
		var mine []*stressOp
		for i := 1 + 2*c; i < n; i += 2 * completers {
			mine = append(mine, ops[i])
		}
		sort.Slice(mine, func(a, b int) bool {
			return mine[a].addedNs+mine[a].completeAt < mine[b].addedNs+mine[b].completeAt
		})
		wg.Add(1)
		go func(mine []*stressOp) {
			defer wg.Done()
			for j, op := range mine {
				if wait := op.addedNs + op.completeAt - stressClock.Nanoseconds(); wait > 0 {
					time.Sleep(time.Duration(wait))
				}
				op.completable.Store(true)
				p.CheckAndComplete(op.keys[j%len(op.keys)])
			}
		}(mine)
	}
	wg.Wait()

	// Everything is due by 2 s after the last add; wait for the stragglers.
	deadline := time.Now().Add(15 * time.Second)
	for finished.Load() < int64(n) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d operations finished", finished.Load(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	stopControl()
	// A Cancel that races with a bucket being flushed can leave a cancelled entry in a lower
	// bucket until that bucket is due (Kafka has the same window), so Delayed may lag a little.
	for p.Delayed() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("delayed = %d after every operation finished", p.Delayed())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Checking every key clears every watch list and removes every list.
	for _, k := range allKeys {
		p.CheckAndComplete(k)
	}
	if w, l := p.Watched(), p.numWatcherLists(); w != 0 || l != 0 {
		t.Errorf("watched %d, lists %d after checking every key", w, l)
	}
	shutdownOnce.Do(shutdown) // drains the executor: every OnExpiration has returned
	t.Logf("all finished %v after the adds started", time.Since(start))

	var lateness []time.Duration
	expiredEarlyOnes, wonByTry := 0, 0
	for i, op := range ops {
		c, e, w := op.completions.Load(), op.expirations.Load(), op.tryWins.Load()
		if c != 1 {
			t.Fatalf("op %d: OnComplete called %d times", i, c)
		}
		if e+w != 1 {
			t.Fatalf("op %d: %d expiries and %d TryComplete wins, want exactly one in all", i, e, w)
		}
		if op.completeAt < 0 && e != 1 {
			t.Fatalf("op %d was never completable but did not expire", i)
		}
		if op.completeAt >= 0 {
			if e == 1 {
				expiredEarlyOnes++
			} else {
				wonByTry++
			}
		}
		if e == 1 {
			deadlineNs := op.addedNs + op.DelayMs*int64(time.Millisecond)
			lateness = append(lateness, time.Duration(op.expiredNs.Load()-deadlineNs))
		}
	}
	slices.Sort(lateness)
	q := func(f float64) time.Duration { return lateness[int(f*float64(len(lateness)-1))] }
	t.Logf("completable half: %d completed by CheckAndComplete, %d lost the race to expiry", wonByTry, expiredEarlyOnes)
	t.Logf("expiry lateness over %d expiries: min %v, p50 %v, p90 %v, p99 %v, p99.9 %v, max %v",
		len(lateness), lateness[0], q(0.5), q(0.9), q(0.99), q(0.999), lateness[len(lateness)-1])
	if wonByTry == 0 || expiredEarlyOnes == 0 {
		t.Fatalf("the race between completion and expiry was not exercised (%d/%d)", wonByTry, expiredEarlyOnes)
	}
	if lateness[0] <= -tick {
		t.Fatalf("an operation expired %v before its deadline (more than one tick early)", -lateness[0])
	}
	slices.Sort(control)
	cq := func(f float64) time.Duration { return control[int(f*float64(len(control)-1))] }
	t.Logf("control (1 ms time.Sleep oversleep, %d samples): p50 %v, p99 %v, max %v",
		len(control), cq(0.5), cq(0.99), control[len(control)-1])
	quiet = cq(0.99) <= quietControlP99
	if p50, bound := q(0.5), tick+5*time.Millisecond+cq(0.5); p50 > bound {
		return quiet, fmt.Errorf("median lateness %v > tick + 5ms + control median = %v", p50, bound)
	}
	if p99, bound := q(0.99), tick+p99Slack+cq(0.99); p99 > bound {
		return quiet, fmt.Errorf("p99 lateness %v > tick + %v + control p99 = %v", p99, p99Slack, bound)
	}
	if max, bound := lateness[len(lateness)-1], tick+maxSlack+control[len(control)-1]; max > bound {
		return quiet, fmt.Errorf("max lateness %v > tick + %v + control max = %v", max, maxSlack, bound)
	}
	return quiet, nil
}

// soak reports whether ZKAFKA_LONG=1 asks for the long variant.
func soak() bool { return os.Getenv("ZKAFKA_LONG") == "1" }

// stressOps is the operation count: def, or 300,000 for a soak run with ZKAFKA_LONG=1.
func stressOps(def int) int {
	if soak() {
		return 300_000
	}
	return def
}
