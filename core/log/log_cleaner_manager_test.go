package log

// Ports of Kafka 0.10.2's LogCleanerManagerTest:
//
//	Kafka test                                                        Go test
//	testLogsWithSegmentsToDeleteShouldNotConsiderCleanupPolicyDeleteLogs  TestLogCleanerManagerDeletableLogs/delete
//	testLogsWithSegmentsToDeleteShouldConsiderCleanupPolicyCompactDeleteLogs TestLogCleanerManagerDeletableLogs/compact,delete
//	testLogsWithSegmentsToDeleteShouldNotConsiderCleanupPolicyCompactLogs TestLogCleanerManagerDeletableLogs/compact
//	testCleanableOffsetsForNone                                       TestLogCleanerManagerCleanableOffsetsForNone
//	testCleanableOffsetsForTime                                       TestLogCleanerManagerCleanableOffsetsForTime
//	testCleanableOffsetsForShortTime                                  TestLogCleanerManagerCleanableOffsetsForShortTime
//
// plus the in-progress/aborted/paused state machine (TestLogCleanerManagerStates), the choice of
// the dirtiest log (TestLogCleanerManagerGrabFilthiest) and the cleaner thread end to end
// (TestLogManagerCompactsWithCleanerThread).

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/utils"
	"github.com/zkafka/zkafka/zk/zktest"
)

var lcmTP = common.TopicPartition{Topic: "log", Partition: 0}

func newTestCleanerManager(t *testing.T, logDir string, logs map[common.TopicPartition]*Log, tm common.Time) *LogCleanerManager {
	t.Helper()
	pool := newLogPool()
	for tp, l := range logs {
		pool.putIfAbsent(tp, l)
	}
	m, err := newLogCleanerManager([]string{logDir}, pool, tm, orNopLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLogCleanerManagerDeletableLogs(t *testing.T) {
	for policy, want := range map[string]int{Delete: 0, "compact,delete": 1, Compact: 0} {
		t.Run(policy, func(t *testing.T) {
			e := newCleanerEnv(t)
			e.dir = filepath.Join(filepath.Dir(e.dir), "log-0")
			size := singletonRecords(t, []byte("test"), []byte("test")).SizeInBytes()
			l := e.makeLog(e.config(map[string]string{SegmentBytesProp: strconv.Itoa(size * 5), RetentionMsProp: "1", CleanupPolicyProp: policy}))
			m := newTestCleanerManager(t, filepath.Dir(e.dir), map[common.TopicPartition]*Log{lcmTP: l}, e.time)
			got := m.deletableLogs()
			if len(got) != want {
				t.Fatalf("%d logs ready to be deleted, want %d", len(got), want)
			}
			for tp := range got {
				if s, _ := m.State(tp); s != LogCleaningInProgress {
					t.Fatalf("a deletable log is marked in progress, got %v", s)
				}
				m.doneDeleting(tp)
				if _, busy := m.State(tp); busy {
					t.Fatal("doneDeleting must clear the state")
				}
			}
		})
	}
}

func appendWithTimestamp(t *testing.T, l *Log, ts int64) {
	leo := int(l.LogEndOffset())
	mustAppend(t, l, messageSet(t, keyBytes(leo), keyBytes(leo), ts), true)
}

func TestLogCleanerManagerCleanableOffsetsForNone(t *testing.T) {
	e := newCleanerEnv(t)
	l := e.makeLog(e.config(nil))
	for l.NumberOfSegments() < 8 {
		appendWithTimestamp(t, l, e.time.Milliseconds())
	}
	first, uncleanable := cleanableOffsets(l, lcmTP, map[common.TopicPartition]int64{lcmTP: 0}, e.time.Milliseconds(), orNopLogger(nil))
	if first != 0 || uncleanable != l.ActiveSegment().BaseOffset() {
		t.Fatalf("(%d, %d), active base %d", first, uncleanable, l.ActiveSegment().BaseOffset())
	}
}

func TestLogCleanerManagerCleanableOffsetsForTime(t *testing.T) {
	e := newCleanerEnv(t)
	const lag = 60 * 60 * 1000
	l := e.makeLog(e.config(map[string]string{MinCompactionLagMsProp: strconv.Itoa(lag)}))
	t0 := e.time.Milliseconds()
	for l.NumberOfSegments() < 4 {
		appendWithTimestamp(t, l, t0)
	}
	activeAtT0 := l.ActiveSegment()
	e.advance((lag + 1) * time.Millisecond)
	t1 := e.time.Milliseconds()
	for l.NumberOfSegments() < 8 {
		appendWithTimestamp(t, l, t1)
	}
	first, uncleanable := cleanableOffsets(l, lcmTP, map[common.TopicPartition]int64{lcmTP: 0}, e.time.Milliseconds(), orNopLogger(nil))
	if first != 0 || uncleanable != activeAtT0.BaseOffset() {
		t.Fatalf("(%d, %d), want (0, %d)", first, uncleanable, activeAtT0.BaseOffset())
	}
}

func TestLogCleanerManagerCleanableOffsetsForShortTime(t *testing.T) {
	e := newCleanerEnv(t)
	const lag = 60 * 60 * 1000
	l := e.makeLog(e.config(map[string]string{MinCompactionLagMsProp: strconv.Itoa(lag)}))
	t0 := e.time.Milliseconds()
	for l.NumberOfSegments() < 8 {
		appendWithTimestamp(t, l, t0)
	}
	e.advance((lag + 1) * time.Millisecond)
	first, uncleanable := cleanableOffsets(l, lcmTP, map[common.TopicPartition]int64{lcmTP: 0}, e.time.Milliseconds(), orNopLogger(nil))
	if first != 0 || uncleanable != l.ActiveSegment().BaseOffset() {
		t.Fatalf("(%d, %d), active base %d", first, uncleanable, l.ActiveSegment().BaseOffset())
	}
	// A checkpoint below the log start is reset to the log start.
	if first, _ := cleanableOffsets(l, lcmTP, map[common.TopicPartition]int64{lcmTP: -5}, e.time.Milliseconds(), orNopLogger(nil)); first != 0 {
		t.Fatalf("first dirty %d", first)
	}
}

func TestLogCleanerManagerStates(t *testing.T) {
	e := newCleanerEnv(t)
	e.dir = filepath.Join(filepath.Dir(e.dir), "log-0")
	l := e.makeLog(e.config(nil))
	parent := filepath.Dir(e.dir)
	m := newTestCleanerManager(t, parent, map[common.TopicPartition]*Log{lcmTP: l}, e.time)

	// idle -> paused -> (resume) idle
	if err := m.AbortAndPauseCleaning(lcmTP); err != nil {
		t.Fatal(err)
	}
	if s, _ := m.State(lcmTP); s != LogCleaningPaused {
		t.Fatalf("state %v", s)
	}
	if err := m.AbortAndPauseCleaning(lcmTP); !errors.Is(err, ErrIllegalState) {
		t.Fatalf("pausing a paused partition: %v", err)
	}
	if err := m.ResumeCleaning(lcmTP); err != nil {
		t.Fatal(err)
	}
	if err := m.ResumeCleaning(lcmTP); !errors.Is(err, ErrIllegalState) {
		t.Fatalf("resuming an idle partition: %v", err)
	}

	// in progress -> abort requested while a "thread" works -> the thread sees it, finishes,
	// the partition is paused and the aborter returns.
	m.mu.Lock()
	m.inProgress[lcmTP] = LogCleaningInProgress
	m.mu.Unlock()
	done := make(chan error)
	go func() { done <- m.AbortAndPauseCleaning(lcmTP) }()
	zktest.WaitUntilTrue(t, func() bool { return m.checkCleaningAborted(lcmTP) != nil }, "abort not requested", 5*time.Second)
	select {
	case <-done:
		t.Fatal("the aborter must wait for the cleaning to stop")
	case <-time.After(20 * time.Millisecond):
	}
	if err := m.doneCleaning(lcmTP, parent, 99); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s, _ := m.State(lcmTP); s != LogCleaningPaused {
		t.Fatalf("state %v", s)
	}
	cps, _ := m.AllCleanerCheckpoints()
	if _, ok := cps[lcmTP]; ok {
		t.Fatal("an aborted cleaning must not move the checkpoint")
	}
	if err := m.ResumeCleaning(lcmTP); err != nil {
		t.Fatal(err)
	}

	// a completed cleaning moves the checkpoint; truncation lowers it; deletion prunes it
	m.mu.Lock()
	m.inProgress[lcmTP] = LogCleaningInProgress
	m.mu.Unlock()
	if err := m.doneCleaning(lcmTP, parent, 42); err != nil {
		t.Fatal(err)
	}
	if err := m.doneCleaning(lcmTP, parent, 42); !errors.Is(err, ErrIllegalState) {
		t.Fatalf("doneCleaning of an idle partition: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(parent, CleanerOffsetCheckpointFile))
	if string(b) != "0\n1\nlog 0 42\n" {
		t.Fatalf("cleaner-offset-checkpoint %q", b)
	}
	if err := m.MaybeTruncateCheckpoint(parent, lcmTP, 50); err != nil {
		t.Fatal(err)
	}
	if cps, _ := m.AllCleanerCheckpoints(); cps[lcmTP] != 42 {
		t.Fatalf("raised by truncation: %v", cps)
	}
	if err := m.MaybeTruncateCheckpoint(parent, lcmTP, 10); err != nil {
		t.Fatal(err)
	}
	if cps, _ := m.AllCleanerCheckpoints(); cps[lcmTP] != 10 {
		t.Fatalf("not lowered by truncation: %v", cps)
	}
	m.logs.remove(lcmTP)
	if err := m.UpdateCheckpoints(parent, nil); err != nil {
		t.Fatal(err)
	}
	if cps, _ := m.AllCleanerCheckpoints(); len(cps) != 0 {
		t.Fatalf("deleted log kept in the checkpoint: %v", cps)
	}
}

func TestLogCleanerManagerGrabFilthiest(t *testing.T) {
	e := newCleanerEnv(t)
	parent := filepath.Dir(e.dir)
	mk := func(name string, keys int, policy string) *Log {
		e.dir = filepath.Join(parent, name)
		l := e.makeLog(e.config(map[string]string{CleanupPolicyProp: policy}))
		for l.NumberOfSegments() < 4 {
			leo := int(l.LogEndOffset())
			mustAppend(t, l, intRecord(t, leo%keys, leo), true)
		}
		return l
	}
	a, b, c := mk("a-0", 5, Compact), mk("b-0", 5, Compact), mk("c-0", 5, Delete)
	tpA, tpB, tpC := common.TopicPartition{Topic: "a"}, common.TopicPartition{Topic: "b"}, common.TopicPartition{Topic: "c"}
	m := newTestCleanerManager(t, parent, map[common.TopicPartition]*Log{tpA: a, tpB: b, tpC: c}, e.time)
	// b is half clean already: a (all dirty) is the filthiest
	if err := m.UpdateCheckpoints(parent, &TopicPartitionOffset{tpB, b.LogSegments()[2].BaseOffset()}); err != nil {
		t.Fatal(err)
	}
	ltc, ok, err := m.grabFilthiestCompactedLog()
	if err != nil || !ok || ltc.TopicPartition != tpA || ltc.CleanableRatio != 1 {
		t.Fatalf("%+v %v %v", ltc, ok, err)
	}
	// a is now in progress: b is next, its ratio (about 1/3) being above 0.5? no: below, so nothing
	ltc, ok, _ = m.grabFilthiestCompactedLog()
	if ok {
		t.Fatalf("b's ratio %.2f is below min.cleanable.dirty.ratio but it was chosen", ltc.CleanableRatio)
	}
	if r := m.DirtiestLogCleanableRatio(); r <= 0 || r >= 0.5 {
		t.Fatalf("dirtiest ratio gauge %v", r)
	}
}

// TestLogManagerCompactsWithCleanerThread runs the cleaner goroutine for real: the dirtiest
// compacted log is cleaned, every key keeps its latest value, and cleaner-offset-checkpoint
// records the end of the cleaned section.
func TestLogManagerCompactsWithCleanerThread(t *testing.T) {
	e := newLMEnv(t)
	dir := t.TempDir()
	config := lmConfig(t, map[string]string{CleanupPolicyProp: Compact, SegmentBytesProp: "512"})
	cc := NewCleanerConfig()
	cc.DedupeBufferSize = 1 << 20
	cc.IOBufferSize = 64 << 10
	cc.BackOff = 10 * time.Millisecond
	m, err := NewLogManager(LogManagerConfig{LogDirs: []string{dir}, DefaultConfig: config, CleanerConfig: cc,
		IOThreads: 1, FlushCheck: time.Hour, FlushCheckpoint: time.Hour, RetentionCheck: time.Hour}, e.sched, nil, e.time, nil)
	if err != nil {
		t.Fatal(err)
	}
	tp := common.TopicPartition{Topic: "compacted"}
	l, err := m.CreateLog(tp, config)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; l.NumberOfSegments() < 8; i++ {
		mustAppend(t, l, intRecord(t, i%10, i), true)
	}
	latest := map[int]string{}
	for _, en := range shallowRecords(t, l) {
		k, _ := strconv.Atoi(string(en.Record.Key()))
		latest[k] = string(en.Record.Value())
	}
	sizeBefore := l.Size()
	activeBase := l.ActiveSegment().BaseOffset()
	m.Startup()
	defer func() {
		if err := m.Shutdown(); err != nil {
			t.Error(err)
		}
	}()
	if !m.Cleaner.AwaitCleaned(tp, activeBase, 20*time.Second) {
		t.Fatal("log not cleaned in time")
	}
	if l.Size() >= sizeBefore {
		t.Fatalf("size %d -> %d", sizeBefore, l.Size())
	}
	got := map[int]string{}
	for _, en := range shallowRecords(t, l) {
		k, _ := strconv.Atoi(string(en.Record.Key()))
		got[k] = string(en.Record.Value())
	}
	for k, v := range latest {
		if got[k] != v {
			t.Fatalf("key %d: %q, latest %q", k, got[k], v)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, CleanerOffsetCheckpointFile))
	if want := "0\n1\ncompacted 0 " + strconv.FormatInt(activeBase, 10) + "\n"; string(b) != want {
		t.Fatalf("cleaner-offset-checkpoint %q want %q", b, want)
	}
	if m.Cleaner.CleanerRecopyPercent() <= 0 || m.Cleaner.CleanerRecopyPercent() >= 100 {
		t.Fatalf("recopy percent %d", m.Cleaner.CleanerRecopyPercent())
	}
	// A follower truncation below the active segment pauses the cleaner, lowers the cleaner
	// checkpoint to the new active segment and resumes.
	if err := m.TruncateTo(map[common.TopicPartition]int64{tp: 5}); err != nil {
		t.Fatal(err)
	}
	cps, err := m.Cleaner.Manager().AllCleanerCheckpoints()
	if err != nil || cps[tp] != l.ActiveSegment().BaseOffset() || cps[tp] > 5 {
		t.Fatalf("cleaner checkpoint after truncation %v (active base %d) %v", cps, l.ActiveSegment().BaseOffset(), err)
	}
	if s, busy := m.Cleaner.Manager().State(tp); busy && s != LogCleaningInProgress {
		t.Fatalf("cleaning left in state %v", s)
	}
}

// TestCleanerThrottlesIO checks that the cleaner's reads and writes go through the throttler
// (log.cleaner.io.max.bytes.per.second): at 10 kB/s, cleaning a few kB must sleep.
func TestCleanerThrottlesIO(t *testing.T) {
	e := newCleanerEnv(t)
	l := e.makeLog(e.config(nil))
	fillUntilSegments(t, l, 3)
	cleaner := e.makeCleaner(1000, nil, 0)
	cleaner.throttler = utils.NewThrottler(10000, 0, true, e.time)
	e.time.Advance(time.Millisecond)
	before := e.time.Milliseconds()
	mustClean(t, cleaner, l, 0, l.ActiveSegment().BaseOffset())
	if slept := e.time.Milliseconds() - before; slept < 50 {
		t.Fatalf("throttled cleaning slept only %d ms", slept)
	}
}
