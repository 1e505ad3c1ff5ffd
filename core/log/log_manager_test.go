package log

// Ports of Kafka 0.10.2's LogManagerTest (core/src/test/scala/unit/kafka/log/LogManagerTest.scala):
//
//	Kafka test                                        Go test
//	testCreateLog                                     TestLogManagerCreateLog
//	testGetNonExistentLog                             TestLogManagerGetNonExistentLog
//	testCleanupExpiredSegments                        TestLogManagerCleanupExpiredSegments
//	testCleanupSegmentsToMaintainSize                 TestLogManagerCleanupSegmentsToMaintainSize
//	testDoesntCleanLogsWithCompactDeletePolicy        TestLogManagerDoesntCleanLogsWithCompactDeletePolicy
//	testTimeBasedFlush                                TestLogManagerTimeBasedFlush
//	testLeastLoadedAssignment                         TestLogManagerLeastLoadedAssignment
//	testTwoLogManagersUsingSameDirFails               TestLogManagerTwoLogManagersUsingSameDirFails
//	testCheckpointRecoveryPoints                      TestLogManagerCheckpointRecoveryPoints
//	testRecoveryDirectoryMappingWithTrailingSlash     TestLogManagerRecoveryDirectoryMappingWithTrailingSlash
//	testRecoveryDirectoryMappingWithRelativeDirectory TestLogManagerRecoveryDirectoryMappingWithRelativeDirectory
//
// Beyond Kafka's tests: clean/unclean shutdown and recovery (TestLogManagerCleanShutdownSkipsRecovery,
// TestLogManagerUncleanShutdownRecoversFromCheckpoint), directory-name rules at load
// (TestLogManagerRejectsBadDirectoryNames), topic deletion (TestLogManagerAsyncDelete), truncation
// (TestLogManagerTruncate) and the cleaner thread end to end (TestLogManagerCompactsWithCleanerThread,
// in log_cleaner_manager_test.go).

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/utils"
)

const (
	lmMaxLogAgeMs = 10 * 60 * 60 * 1000
	lmTopic       = "kafka"
)

// lmEnv is the MockTime/MockScheduler pair of LogManagerTest; advance is Kafka's time.sleep.
type lmEnv struct {
	t         *testing.T
	time      *common.MockTime
	sched     *utils.MockScheduler
	slowTasks bool
}

func newLMEnv(t *testing.T) *lmEnv {
	tm := common.NewMockTime(time.Now().UnixMilli())
	return &lmEnv{t: t, time: tm, sched: utils.NewMockScheduler(tm)}
}

func (e *lmEnv) advance(ms int64) {
	e.time.Advance(time.Duration(ms) * time.Millisecond)
	e.sched.Tick()
}

// lmConfig is LogManagerTest's logConfig (1 KiB segments, 4 KiB index, 10 h retention).
func lmConfig(t *testing.T, overrides map[string]string) *LogConfig {
	t.Helper()
	props := map[string]string{SegmentBytesProp: "1024", SegmentIndexBytesProp: "4096", RetentionMsProp: "36000000"}
	for k, v := range overrides {
		props[k] = v
	}
	c, err := NewLogConfig(props)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// create is TestUtils.createLogManager: flush check 1 s, checkpoint 10 s, retention check 1 s,
// 4 recovery threads, cleaner off. Tests that jump the clock by hours set slowTasks: the
// MockScheduler runs a periodic task once per period of the jump, and thousands of fsynced
// checkpoint writes would dominate the test time.
func (e *lmEnv) create(dirs []string, defaultConfig *LogConfig) (*LogManager, error) {
	checkpoint, retention := 10*time.Second, time.Second
	if e.slowTasks {
		checkpoint, retention = time.Hour, time.Minute
	}
	return NewLogManager(LogManagerConfig{
		LogDirs: dirs, DefaultConfig: defaultConfig, CleanerConfig: CleanerConfig{EnableCleaner: false},
		IOThreads: 4, FlushCheck: time.Second, FlushCheckpoint: checkpoint, RetentionCheck: retention,
	}, e.sched, nil, e.time, nil)
}

func (e *lmEnv) mustCreate(dirs []string, defaultConfig *LogConfig) *LogManager {
	e.t.Helper()
	m, err := e.create(dirs, defaultConfig)
	if err != nil {
		e.t.Fatal(err)
	}
	return m
}

func (e *lmEnv) startup(m *LogManager) *LogManager {
	m.Startup()
	e.t.Cleanup(func() { _ = m.Shutdown() })
	return m
}

// singletonRecords is TestUtils.singletonRecords: one v1 message without timestamp.
func singletonRecords(t testing.TB, key, value []byte) *record.MemoryRecords {
	return messageSetAt(t, 0, 1, key, value, record.NoTimestamp)
}

func TestLogManagerCreateLog(t *testing.T) {
	e := newLMEnv(t)
	dir := t.TempDir()
	m := e.startup(e.mustCreate([]string{dir}, lmConfig(t, nil)))
	l, err := m.CreateLog(common.TopicPartition{Topic: lmTopic}, lmConfig(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, lmTopic+"-0")); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, singletonRecords(t, nil, []byte("test")), true)
	if again, _ := m.CreateLog(common.TopicPartition{Topic: lmTopic}, lmConfig(t, nil)); again != l {
		t.Fatal("CreateLog of an existing partition must return the existing log")
	}
}

func TestLogManagerGetNonExistentLog(t *testing.T) {
	e := newLMEnv(t)
	dir := t.TempDir()
	m := e.startup(e.mustCreate([]string{dir}, lmConfig(t, nil)))
	if m.GetLog(common.TopicPartition{Topic: lmTopic}) != nil {
		t.Fatal("No log should be found.")
	}
	if _, err := os.Stat(filepath.Join(dir, lmTopic+"-0")); !os.IsNotExist(err) {
		t.Fatal("the log directory must not be created")
	}
}

// checkOutOfRangeAndAppendable checks the tail of Kafka's cleanup tests.
func checkOutOfRangeAndAppendable(t *testing.T, l *Log, offset int64) {
	t.Helper()
	info, err := l.Read(offset+1, 1024, nil, false)
	if err != nil || info.Records.SizeInBytes() != 0 {
		t.Fatalf("Should get empty fetch off new log: %v", err)
	}
	if _, err := l.Read(0, 1024, nil, false); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Fatalf("Should get exception from fetching earlier: %v", err)
	}
	mustAppend(t, l, singletonRecords(t, nil, []byte("test")), true)
}

func countFiles(t *testing.T, dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

func TestLogManagerCleanupExpiredSegments(t *testing.T) {
	e := newLMEnv(t)
	e.slowTasks = true
	m := e.startup(e.mustCreate([]string{t.TempDir()}, lmConfig(t, nil)))
	l, err := m.CreateLog(common.TopicPartition{Topic: lmTopic}, lmConfig(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	var offset int64
	for i := 0; i < 200; i++ {
		offset = mustAppend(t, l, singletonRecords(t, nil, []byte("test")), true).LastOffset
	}
	if l.NumberOfSegments() <= 1 {
		t.Fatal("There should be more than one segment now.")
	}
	for _, s := range l.LogSegments() {
		if err := s.SetLastModified(e.time.Milliseconds()); err != nil {
			t.Fatal(err)
		}
	}
	e.advance(lmMaxLogAgeMs + 1)
	if n := l.NumberOfSegments(); n != 1 {
		t.Fatalf("Now there should only be only one segment in the index: %d", n)
	}
	e.advance(l.Config().FileDeleteDelayMs + 1)
	if n := countFiles(t, l.Dir()); n != l.NumberOfSegments()*3 {
		t.Fatalf("Files should have been deleted: %d files", n)
	}
	checkOutOfRangeAndAppendable(t, l, offset)
}

func TestLogManagerCleanupSegmentsToMaintainSize(t *testing.T) {
	e := newLMEnv(t)
	setSize := singletonRecords(t, nil, []byte("test")).SizeInBytes()
	config, err := FromProps(lmConfig(t, nil).Originals, map[string]string{
		SegmentBytesProp: strconv.Itoa(10 * setSize), RetentionBytesProp: strconv.Itoa(5*10*setSize + 10)})
	if err != nil {
		t.Fatal(err)
	}
	m := e.startup(e.mustCreate([]string{t.TempDir()}, lmConfig(t, nil)))
	l, err := m.CreateLog(common.TopicPartition{Topic: lmTopic}, config)
	if err != nil {
		t.Fatal(err)
	}
	var offset int64
	const numMessages = 200
	for i := 0; i < numMessages; i++ {
		offset = mustAppend(t, l, singletonRecords(t, nil, []byte("test")), true).FirstOffset
	}
	if n, want := l.NumberOfSegments(), numMessages*setSize/config.SegmentSize; n != want {
		t.Fatalf("Check we have the expected number of segments: %d, want %d", n, want)
	}
	e.advance(InitialTaskDelay.Milliseconds())
	if n := l.NumberOfSegments(); n != 6 {
		t.Fatalf("Now there should be exactly 6 segments: %d", n)
	}
	e.advance(l.Config().FileDeleteDelayMs + 1)
	if n := countFiles(t, l.Dir()); n != l.NumberOfSegments()*3 {
		t.Fatalf("Files should have been deleted: %d files", n)
	}
	checkOutOfRangeAndAppendable(t, l, offset)
}

func TestLogManagerDoesntCleanLogsWithCompactDeletePolicy(t *testing.T) {
	e := newLMEnv(t)
	e.slowTasks = true
	m := e.startup(e.mustCreate([]string{t.TempDir()}, lmConfig(t, nil)))
	l, err := m.CreateLog(common.TopicPartition{Topic: lmTopic}, lmConfig(t, map[string]string{CleanupPolicyProp: "compact,delete"}))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		mustAppend(t, l, singletonRecords(t, []byte("test"), []byte("test")), true)
	}
	numSegments := l.NumberOfSegments()
	if numSegments <= 1 {
		t.Fatal("There should be more than one segment now.")
	}
	for _, s := range l.LogSegments() {
		_ = s.SetLastModified(e.time.Milliseconds())
	}
	e.advance(lmMaxLogAgeMs + 1)
	if n := l.NumberOfSegments(); n != numSegments {
		t.Fatalf("number of segments shouldn't have changed: %d -> %d", numSegments, n)
	}
}

func TestLogManagerTimeBasedFlush(t *testing.T) {
	e := newLMEnv(t)
	config := lmConfig(t, map[string]string{FlushMsProp: "1000"})
	m := e.startup(e.mustCreate([]string{t.TempDir()}, lmConfig(t, nil)))
	l, err := m.CreateLog(common.TopicPartition{Topic: lmTopic}, config)
	if err != nil {
		t.Fatal(err)
	}
	lastFlush := l.LastFlushTime()
	for i := 0; i < 200; i++ {
		mustAppend(t, l, singletonRecords(t, nil, []byte("test")), true)
	}
	e.advance(InitialTaskDelay.Milliseconds())
	if l.LastFlushTime() == lastFlush {
		t.Fatal("Time based flush should have been triggered")
	}
	if l.RecoveryPoint() != l.LogEndOffset() {
		t.Fatalf("flush should move the recovery point to the LEO: %d vs %d", l.RecoveryPoint(), l.LogEndOffset())
	}
}

func TestLogManagerLeastLoadedAssignment(t *testing.T) {
	e := newLMEnv(t)
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	m := e.startup(e.mustCreate(dirs, lmConfig(t, nil)))
	for p := int32(0); p < 20; p++ {
		if _, err := m.CreateLog(common.TopicPartition{Topic: "test", Partition: p}, lmConfig(t, nil)); err != nil {
			t.Fatal(err)
		}
		if n := len(m.AllLogs()); n != int(p)+1 {
			t.Fatalf("We should have created the right number of logs: %d", n)
		}
		counts := map[string]int{}
		for _, d := range m.LogDirs() {
			counts[d] = 0
		}
		for _, l := range m.AllLogs() {
			counts[filepath.Dir(l.Dir())]++
		}
		lo, hi := 1<<30, 0
		for _, c := range counts {
			lo, hi = min(lo, c), max(hi, c)
		}
		if hi > lo+1 {
			t.Fatalf("Load should balance evenly: %v", counts)
		}
	}
}

func TestLogManagerTwoLogManagersUsingSameDirFails(t *testing.T) {
	e := newLMEnv(t)
	dir := t.TempDir()
	e.startup(e.mustCreate([]string{dir}, lmConfig(t, nil)))
	if _, err := e.create([]string{dir}, lmConfig(t, nil)); !errors.Is(err, ErrLogDirLocked) {
		t.Fatalf("Should not be able to create a second log manager instance with the same data directory: %v", err)
	}
}

func verifyCheckpointRecovery(t *testing.T, m *LogManager, dir string, tps []common.TopicPartition) {
	t.Helper()
	var logs []*Log
	for _, tp := range tps {
		l, err := m.CreateLog(tp, lmConfig(t, nil))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 50; i++ {
			mustAppend(t, l, singletonRecords(t, nil, []byte("test")), true)
		}
		if err := l.Flush(); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, l)
	}
	if err := m.CheckpointRecoveryPointOffsets(); err != nil {
		t.Fatal(err)
	}
	cp, err := NewOffsetCheckpoint(filepath.Join(dir, RecoveryPointCheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	checkpoints, err := cp.Read()
	if err != nil {
		t.Fatal(err)
	}
	for i, tp := range tps {
		if checkpoints[tp] != logs[i].RecoveryPoint() || checkpoints[tp] != 50 {
			t.Fatalf("Recovery point should equal checkpoint: %d vs %d", checkpoints[tp], logs[i].RecoveryPoint())
		}
	}
}

func TestLogManagerCheckpointRecoveryPoints(t *testing.T) {
	e := newLMEnv(t)
	dir := t.TempDir()
	m := e.startup(e.mustCreate([]string{dir}, lmConfig(t, nil)))
	verifyCheckpointRecovery(t, m, dir, []common.TopicPartition{{Topic: "test-a", Partition: 1}, {Topic: "test-b", Partition: 1}})
}

func TestLogManagerRecoveryDirectoryMappingWithTrailingSlash(t *testing.T) {
	e := newLMEnv(t)
	dir := t.TempDir()
	m := e.startup(e.mustCreate([]string{dir + string(filepath.Separator)}, lmConfig(t, nil)))
	verifyCheckpointRecovery(t, m, dir, []common.TopicPartition{{Topic: "test-a", Partition: 1}})
}

func TestLogManagerRecoveryDirectoryMappingWithRelativeDirectory(t *testing.T) {
	e := newLMEnv(t)
	base := t.TempDir()
	t.Chdir(base)
	rel := filepath.Join("data", "kafka-logs")
	if err := os.MkdirAll(rel, 0o755); err != nil {
		t.Fatal(err)
	}
	m := e.startup(e.mustCreate([]string{rel}, lmConfig(t, nil)))
	verifyCheckpointRecovery(t, m, rel, []common.TopicPartition{{Topic: "test-a", Partition: 1}})
}

// crash abandons m as a killed broker would: no flush, no checkpoint, no clean-shutdown marker.
func crash(m *LogManager) {
	m.shutdownMu.Lock()
	m.shutDown = true // a later Shutdown (test cleanup) must not write anything
	m.shutdownMu.Unlock()
	m.closeAllLogs()
	m.unlockLogDirs()
}

func TestLogManagerCleanShutdownChecksTheTail(t *testing.T) {
	e := newLMEnv(t)
	dir := t.TempDir()
	tp := common.TopicPartition{Topic: lmTopic}
	m := e.mustCreate([]string{dir}, lmConfig(t, nil))
	m.Startup()
	l, err := m.CreateLog(tp, lmConfig(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		mustAppend(t, l, singletonRecords(t, nil, []byte("test")), true)
	}
	activeLog := l.ActiveSegment().Log().File()
	if err := m.Shutdown(); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, CleanShutdownFile)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("clean shutdown must leave %s: %v", CleanShutdownFile, err)
	}
	cp, _ := NewOffsetCheckpoint(filepath.Join(dir, RecoveryPointCheckpointFile))
	if points, err := cp.Read(); err != nil || points[tp] != 10 {
		t.Fatalf("recovery point at shutdown: %v %v", points, err)
	}
	// A clean start recovers nothing (the recovery point is the log end) but checks that the
	// active segment ends on a whole message (load_checks.go, a zkafka addition): garbage after
	// the last message, which 0.10.2 would keep, is cut off.
	garbage := []byte{0, 0, 0, 0, 0, 0, 0, 99, 0, 0, 0, 40, 1, 2, 3}
	sizeBefore := appendBytes(t, activeLog, garbage)

	m2 := e.startup(e.mustCreate([]string{dir}, lmConfig(t, nil)))
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatal("the clean shutdown marker must be deleted once the logs are loaded")
	}
	if st, _ := os.Stat(activeLog); st.Size() != sizeBefore {
		t.Fatalf("the torn tail was not cut after a clean shutdown: size %d, want %d", st.Size(), sizeBefore)
	}
	l2 := m2.GetLog(tp)
	if l2 == nil || l2.LogEndOffset() != 10 {
		t.Fatal("log not loaded")
	}
}

// appendBytes appends b to the file and returns its previous size.
func appendBytes(t *testing.T, path string, b []byte) int64 {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func TestLogManagerUncleanShutdownRecoversFromCheckpoint(t *testing.T) {
	e := newLMEnv(t)
	dir := t.TempDir()
	tp := common.TopicPartition{Topic: lmTopic}
	config := lmConfig(t, map[string]string{SegmentBytesProp: "300"})
	m := e.mustCreate([]string{dir}, config)
	m.Startup()
	l, err := m.CreateLog(tp, config)
	if err != nil {
		t.Fatal(err)
	}
	for l.NumberOfSegments() < 3 {
		mustAppend(t, l, singletonRecords(t, nil, []byte("test")), true)
	}
	// The roll flushed the first segments; checkpoint, then write more into the active one.
	if err := m.CheckpointRecoveryPointOffsets(); err != nil {
		t.Fatal(err)
	}
	recoveryPoint := l.RecoveryPoint()
	segs := l.LogSegments()
	if recoveryPoint != segs[len(segs)-1].BaseOffset() {
		t.Fatalf("recovery point %d, active base %d", recoveryPoint, segs[len(segs)-1].BaseOffset())
	}
	mustAppend(t, l, singletonRecords(t, nil, []byte("test")), true)
	leo := l.LogEndOffset()
	oldLog := segs[0].Log().File()
	activeLog := l.ActiveSegment().Log().File()
	crash(m)

	// Garbage in a segment below the recovery point is not looked at; garbage in the active
	// segment (above the recovery point) is truncated.
	garbage := []byte{0, 0, 0, 0, 0, 0, 0, 99, 0, 0, 0, 40, 1, 2, 3}
	oldSize := appendBytes(t, oldLog, garbage)
	activeSize := appendBytes(t, activeLog, garbage)

	m2 := e.startup(e.mustCreate([]string{dir}, config))
	if st, _ := os.Stat(activeLog); st.Size() != activeSize {
		t.Fatalf("active segment not recovered: %d bytes, want %d", st.Size(), activeSize)
	}
	if st, _ := os.Stat(oldLog); st.Size() != oldSize+int64(len(garbage)) {
		t.Fatalf("segment below the recovery point was scanned: %d bytes", st.Size())
	}
	l2 := m2.GetLog(tp)
	if l2 == nil || l2.LogEndOffset() != leo {
		t.Fatalf("LEO after recovery: %v", l2)
	}
}

func TestLogManagerRejectsBadDirectoryNames(t *testing.T) {
	e := newLMEnv(t)
	for _, name := range []string{"nodash", "-1", "topic-x", "topic-"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
				t.Fatal(err)
			}
			if _, err := e.create([]string{dir}, lmConfig(t, nil)); err == nil {
				t.Fatalf("directory %q accepted", name)
			}
			// the failed start released the lock
			m := e.mustCreate([]string{t.TempDir()}, lmConfig(t, nil))
			_ = m.Shutdown()
		})
	}
	dir := t.TempDir()
	for _, name := range []string{"my-topic-3", "a-b-c-0"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m := e.startup(e.mustCreate([]string{dir}, lmConfig(t, nil)))
	if m.GetLog(common.TopicPartition{Topic: "my-topic", Partition: 3}) == nil || m.GetLog(common.TopicPartition{Topic: "a-b-c"}) == nil {
		t.Fatal("topic names with '-' must parse at the last '-'")
	}
}

func TestLogManagerAsyncDelete(t *testing.T) {
	e := newLMEnv(t)
	dir := t.TempDir()
	tp := common.TopicPartition{Topic: lmTopic, Partition: 2}
	m := e.startup(e.mustCreate([]string{dir}, lmConfig(t, nil)))
	l, err := m.CreateLog(tp, lmConfig(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, singletonRecords(t, nil, []byte("test")), true)
	if err := m.AsyncDelete(tp); err != nil {
		t.Fatal(err)
	}
	if m.GetLog(tp) != nil {
		t.Fatal("deleted log still served")
	}
	entries, _ := os.ReadDir(dir)
	var renamed string
	for _, de := range entries {
		if strings.HasPrefix(de.Name(), lmTopic+"-2.") && strings.HasSuffix(de.Name(), DeleteDirSuffix) {
			renamed = de.Name()
		}
	}
	if renamed == "" || len(strings.TrimSuffix(strings.TrimPrefix(renamed, lmTopic+"-2."), DeleteDirSuffix)) != 32 {
		t.Fatalf("log dir not renamed to <tp>.<uuid>-delete: %v", entries)
	}
	e.advance(InitialTaskDelay.Milliseconds())
	if _, err := os.Stat(filepath.Join(dir, renamed)); !os.IsNotExist(err) {
		t.Fatal("kafka-delete-logs did not remove the directory")
	}

	// A deletion interrupted by a crash is finished after the restart.
	l, err = m.CreateLog(tp, lmConfig(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AsyncDelete(tp); err != nil {
		t.Fatal(err)
	}
	crash(m)
	e2 := newLMEnv(t)
	m2 := e2.startup(e2.mustCreate([]string{dir}, lmConfig(t, nil)))
	if m2.GetLog(tp) != nil {
		t.Fatal("a -delete directory was loaded as a live log")
	}
	e2.advance(InitialTaskDelay.Milliseconds())
	entries, _ = os.ReadDir(dir)
	for _, de := range entries {
		if strings.HasSuffix(de.Name(), DeleteDirSuffix) {
			t.Fatalf("%s survived the restart", de.Name())
		}
	}
}

func TestLogManagerTruncate(t *testing.T) {
	e := newLMEnv(t)
	dir := t.TempDir()
	tp := common.TopicPartition{Topic: lmTopic}
	m := e.startup(e.mustCreate([]string{dir}, lmConfig(t, nil)))
	l, err := m.CreateLog(tp, lmConfig(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		mustAppend(t, l, singletonRecords(t, nil, []byte("test")), true)
	}
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := m.TruncateTo(map[common.TopicPartition]int64{tp: 40, {Topic: "absent"}: 5}); err != nil {
		t.Fatal(err)
	}
	cp, _ := NewOffsetCheckpoint(filepath.Join(dir, RecoveryPointCheckpointFile))
	points, err := cp.Read()
	if err != nil || l.LogEndOffset() != 40 || points[tp] != 40 {
		t.Fatalf("after truncateTo: LEO %d checkpoint %v %v", l.LogEndOffset(), points, err)
	}
	if err := m.TruncateFullyAndStartAt(tp, 500); err != nil {
		t.Fatal(err)
	}
	points, _ = cp.Read()
	// Log.truncateFullyAndStartAt keeps min(newOffset, recoveryPoint) as the recovery point.
	if l.LogEndOffset() != 500 || l.NumberOfSegments() != 1 || points[tp] != 40 {
		t.Fatalf("after truncateFullyAndStartAt: LEO %d segments %d checkpoint %v", l.LogEndOffset(), l.NumberOfSegments(), points)
	}
}
