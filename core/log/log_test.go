package log

// Ports of Kafka 0.10.2's LogTest (scenarios rewritten for Go); the loading and recovery ones live
// in log_load_test.go. Tests marked (zkafka) cover
// behaviour the Kafka suite checks elsewhere (LogValidatorTest, BrokerCompressionTest, KafkaApis).
//
//	| Kafka test                                          | Go test                                        |
//	|-----------------------------------------------------|------------------------------------------------|
//	| testTimeBasedLogRoll                                | TestLogTimeBasedLogRoll                        |
//	| testTimeBasedLogRollJitter                          | TestLogTimeBasedLogRollJitter                  |
//	| testSizeBasedLogRoll                                | TestLogSizeBasedLogRoll                        |
//	| testLoadEmptyLog                                    | TestLogLoadEmptyLog                            |
//	| testAppendAndReadWithSequentialOffsets              | TestLogAppendAndReadWithSequentialOffsets      |
//	| testAppendAndReadWithNonSequentialOffsets           | TestLogAppendAndReadWithNonSequentialOffsets   |
//	| testReadAtLogGap                                    | TestLogReadAtLogGap                            |
//	| testReadWithMinMessage                              | TestLogReadWithMinMessage                      |
//	| testReadWithTooSmallMaxLength                       | TestLogReadWithTooSmallMaxLength               |
//	| testReadOutOfRange                                  | TestLogReadOutOfRange                          |
//	| testLogRolls                                        | TestLogLogRolls                                |
//	| testCompressedMessages                              | TestLogCompressedMessages                      |
//	| testThatGarbageCollectingSegmentsDoesntChangeOffset | TestLogGarbageCollectingSegmentsDoesntChangeOffset |
//	| testMessageSetSizeCheck                             | TestLogMessageSetSizeCheck                     |
//	| testCompactedTopicConstraints                       | TestLogCompactedTopicConstraints               |
//	| testMessageSizeCheck                                | TestLogMessageSizeCheck                        |
//	| testLogRecoversToCorrectOffset                      | TestLogRecoversToCorrectOffset                 |
//	| testBuildTimeIndexWhenNotAssigningOffsets           | TestLogBuildTimeIndexWhenNotAssigningOffsets   |
//	| testIndexRebuild                                    | TestLogIndexRebuild                            |
//	| testRebuildTimeIndexForOldMessages                  | TestLogRebuildTimeIndexForOldMessages          |
//	| testCorruptIndexRebuild                             | TestLogCorruptIndexRebuild                     |
//	| testTruncateTo                                      | TestLogTruncateTo                              |
//	| testIndexResizingAtTruncation                       | TestLogIndexResizingAtTruncation               |
//	| testBogusIndexSegmentsAreRemoved                    | TestLogBogusIndexSegmentsAreRemoved            |
//	| testReopenThenTruncate                              | TestLogReopenThenTruncate                      |
//	| testAsyncDelete                                     | TestLogAsyncDelete                             |
//	| testOpenDeletesObsoleteFiles                        | TestLogOpenDeletesObsoleteFiles                |
//	| testAppendMessageWithNullPayload                    | TestLogAppendMessageWithNullPayload            |
//	| testAppendWithOutOfOrderOffsetsThrowsException      | TestLogAppendWithOutOfOrderOffsetsThrowsException |
//	| testCorruptLog                                      | TestLogCorruptLog (and crash_safety_test.go)   |
//	| testCleanShutdownFile                               | TestLogCleanShutdownFile                       |
//	| testParseTopicPartitionName*  (9 tests)             | TestLogParseTopicPartitionName (table)         |
//	| testDeleteOldSegmentsMethod                         | TestLogDeleteOldSegmentsMethod                 |
//	| testOverCompactedLogRecovery                        | TestLogOverCompactedLogRecovery                |
//	| (zkafka) retention.ms / retention.bytes             | TestLogRetention                               |
//	| (zkafka) ListOffsets v1 / v0                        | TestLogFetchOffsetsByTimestamp, TestLogGetOffsetsBefore |
//	| (zkafka) LogValidator paths                         | TestLogValidatorPaths                          |
//	| (zkafka) swap recovery                              | TestLogLoadCompletesSwap                       |

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

type logEnv struct {
	dir   string
	tm    *common.MockTime
	sched *utils.MockScheduler
}

func newLogEnv(t *testing.T) *logEnv {
	tm := common.NewMockTime(1_500_000_000_000)
	return &logEnv{dir: logDir(t), tm: tm, sched: utils.NewMockScheduler(tm)}
}

func (e *logEnv) open(t *testing.T, props map[string]string, recoveryPoint int64) *Log {
	t.Helper()
	cfg, err := NewLogConfig(props)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLog(e.dir, cfg, recoveryPoint, e.sched, e.tm, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

func (e *logEnv) sleep(ms int64) {
	e.tm.Sleep(time.Duration(ms) * time.Millisecond)
	e.sched.Tick()
}

func leaderAppend(t *testing.T, l *Log, ms *record.MemoryRecords) LogAppendInfo {
	t.Helper()
	info, err := l.Append(ms, true)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func readLog(t *testing.T, l *Log, start int64, maxLen int, maxOffset *int64) []entryView {
	t.Helper()
	fd, err := l.Read(start, maxLen, maxOffset, false)
	if err != nil {
		t.Fatal(err)
	}
	return deepEntries(t, fd.Records)
}

func props(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func TestLogTimeBasedLogRoll(t *testing.T) {
	e := newLogEnv(t)
	l := e.open(t, props(SegmentMsProp, "3600000"), 0)
	set := func() *record.MemoryRecords { return msgSet(t, 0, record.NoTimestamp, "test") }
	if l.NumberOfSegments() != 1 {
		t.Fatal("log begins with one empty segment")
	}
	e.sleep(3600000 + 1)
	leaderAppend(t, l, set())
	if l.NumberOfSegments() != 1 {
		t.Fatal("no roll into an empty segment")
	}
	leaderAppend(t, l, set())
	if l.NumberOfSegments() != 2 {
		t.Fatal("roll once time expired")
	}
	for n := 3; n < 5; n++ {
		e.sleep(3600000 + 1)
		leaderAppend(t, l, set())
		if l.NumberOfSegments() != n {
			t.Fatalf("want %d segments, got %d", n, l.NumberOfSegments())
		}
	}
	withTs := func() *record.MemoryRecords { return msgSet(t, 0, e.tm.Milliseconds()+3600000+1, "test") }
	ts := withTs()
	leaderAppend(t, l, ts)
	if l.NumberOfSegments() != 4 {
		t.Fatal("roll must follow the wall clock while the first message has no timestamp")
	}
	e.sleep(3600000 + 1)
	leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds(), "test"))
	if l.NumberOfSegments() != 5 {
		t.Fatal("a new segment should have been rolled")
	}
	first := e.tm.Milliseconds()
	e.sleep(3600000 + 1)
	leaderAppend(t, l, msgSet(t, 0, first, "test"))
	if l.NumberOfSegments() != 5 {
		t.Fatal("roll depends on the first message's timestamp, not the wall clock")
	}
	leaderAppend(t, l, msgSet(t, 0, first+3600000+1, "test"))
	if l.NumberOfSegments() != 6 {
		t.Fatal("a message timestamp past segment.ms rolls")
	}
	e.sleep(3600000 + 1)
	leaderAppend(t, l, record.NewMemoryRecords(nil))
	if l.NumberOfSegments() != 6 {
		t.Fatal("an empty set never rolls")
	}
}

func TestLogTimeBasedLogRollJitter(t *testing.T) {
	e := newLogEnv(t)
	const maxJitter = 20 * 60
	l := e.open(t, props(SegmentMsProp, "3600", SegmentJitterMsProp, strconv.Itoa(maxJitter)), 0)
	set := func() *record.MemoryRecords { return msgSet(t, 0, record.NoTimestamp, "test") }
	leaderAppend(t, l, set())
	e.sleep(3600 - maxJitter)
	leaderAppend(t, l, set())
	if l.NumberOfSegments() != 1 {
		t.Fatal("no roll before segment.ms - max jitter")
	}
	e.sleep(maxJitter - l.ActiveSegment().RollJitterMs() + 1)
	leaderAppend(t, l, set())
	if l.NumberOfSegments() != 2 {
		t.Fatal("roll after segment.ms adjusted by the jitter")
	}
}

func TestLogSizeBasedLogRoll(t *testing.T) {
	e := newLogEnv(t)
	setSize := msgSet(t, 0, 0, "test").SizeInBytes()
	l := e.open(t, props(SegmentBytesProp, strconv.Itoa(10*(setSize-1))), 0)
	for range 11 {
		leaderAppend(t, l, msgSet(t, 0, 0, "test"))
	}
	if l.NumberOfSegments() != 2 {
		t.Fatalf("%d segments, want 2", l.NumberOfSegments())
	}
}

func TestLogLoadEmptyLog(t *testing.T) {
	e := newLogEnv(t)
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	l := e.open(t, nil, 0)
	leaderAppend(t, l, msgSet(t, 0, 0, "test"))
	if l.LogEndOffset() != 1 {
		t.Fatal("LEO after one append")
	}
}

func TestLogAppendAndReadWithSequentialOffsets(t *testing.T) {
	e := newLogEnv(t)
	l := e.open(t, props(SegmentBytesProp, "71"), 0)
	var values []string
	for i := range 100 {
		values = append(values, strconv.Itoa(i))
	}
	for _, v := range values {
		leaderAppend(t, l, msgSet(t, 0, 0, v))
	}
	for i := 0; i < len(values); i++ {
		got := readLog(t, l, int64(i), 100, nil)
		if len(got) == 0 || got[0].offset != int64(i) || got[0].value != values[i] {
			t.Fatalf("read %d: %v", i, got)
		}
	}
	if got := readLog(t, l, int64(len(values)), 100, nil); len(got) != 0 {
		t.Fatal("reading at LEO must be empty")
	}
}

func TestLogAppendAndReadWithNonSequentialOffsets(t *testing.T) {
	e := newLogEnv(t)
	l := e.open(t, props(SegmentBytesProp, "72"), 0)
	var offs []int64
	for i := int64(0); i < 50; i++ {
		offs = append(offs, i*2)
	}
	for _, o := range offs {
		if _, err := l.Append(msgSet(t, o, 0, strconv.FormatInt(o, 10)), false); err != nil {
			t.Fatal(err)
		}
	}
	for i := int64(0); i < 50; i++ {
		want := offs[i/2+i%2]
		if i*2 > want {
			want = offs[i]
		}
		got := readLog(t, l, i, 100, nil)
		// the first message at or after i
		exp := i
		if exp%2 == 1 {
			exp++
		}
		if len(got) == 0 || got[0].offset != exp {
			t.Fatalf("read %d: %v want first %d", i, offsetsOf(got), exp)
		}
	}
}

func TestLogReadAtLogGap(t *testing.T) {
	e := newLogEnv(t)
	l := e.open(t, props(SegmentBytesProp, "300"), 0)
	for range 50 {
		leaderAppend(t, l, msgSet(t, 0, 0, "42"))
	}
	// Delete every second segment to create gaps.
	segs := l.LogSegments()
	deleteSet := map[*LogSegment]bool{}
	for i := 1; i < len(segs)-1; i += 2 {
		deleteSet[segs[i]] = true
	}
	l.lock()
	for s := range deleteSet {
		if err := l.deleteSegmentLocked(s); err != nil {
			t.Fatal(err)
		}
	}
	l.unlock()
	for i := int64(0); i < l.LogEndOffset(); i++ {
		got := readLog(t, l, i, 300, nil)
		if len(got) == 0 {
			t.Fatalf("read %d found nothing", i)
		}
		if got[0].offset < i {
			t.Fatalf("read %d returned %d", i, got[0].offset)
		}
	}
}

func TestLogReadWithMinMessage(t *testing.T) {
	e := newLogEnv(t)
	l := e.open(t, props(SegmentBytesProp, "72"), 0)
	for i := int64(0); i < 20; i++ {
		if _, err := l.Append(msgSet(t, i*2, 0, strconv.Itoa(int(i))), false); err != nil {
			t.Fatal(err)
		}
	}
	for i := int64(0); i < 38; i++ {
		fd, err := l.Read(i, 1, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		got := deepEntries(t, fd.Records)
		exp := i + i%2
		if len(got) != 1 || got[0].offset != exp {
			t.Fatalf("read %d with minOneMessage: %v", i, offsetsOf(got))
		}
	}
}

func TestLogReadWithTooSmallMaxLength(t *testing.T) {
	e := newLogEnv(t)
	l := e.open(t, props(SegmentBytesProp, "72"), 0)
	for i := int64(0); i < 20; i++ {
		if _, err := l.Append(msgSet(t, i*2, 0, strconv.Itoa(int(i))), false); err != nil {
			t.Fatal(err)
		}
	}
	for i := int64(0); i < 38; i++ {
		fd, err := l.Read(i, 0, nil, false)
		if err != nil || fd.Records.SizeInBytes() != 0 {
			t.Fatalf("maxLength 0: %v %v", fd, err)
		}
		fd, err = l.Read(i, 1, nil, false)
		if err != nil || len(deepEntries(t, fd.Records)) != 0 || !fd.FirstEntryIncomplete {
			t.Fatalf("maxLength 1 must give no whole message: %v", err)
		}
	}
}

func TestLogReadOutOfRange(t *testing.T) {
	e := newLogEnv(t)
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A log whose first segment starts at 1024.
	if err := os.WriteFile(LogFilename(e.dir, 1024), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	l := e.open(t, props(SegmentBytesProp, "1024"), 0)
	if got := readLog(t, l, 1024, 1000, nil); len(got) != 0 {
		t.Fatal("reading at LEO of an empty log must be empty")
	}
	for _, off := range []int64{0, 1025} {
		if _, err := l.Read(off, 1000, nil, false); !errors.Is(err, ErrOffsetOutOfRange) {
			t.Fatalf("read %d: %v", off, err)
		}
	}
	leaderAppend(t, l, msgSet(t, 0, 0, "42"))
	if got := readLog(t, l, 1024, 1000, nil); len(got) != 1 || got[0].value != "42" {
		t.Fatalf("read after append: %v", got)
	}
	for _, off := range []int64{0, 1026} {
		if _, err := l.Read(off, 1000, nil, false); !errors.Is(err, ErrOffsetOutOfRange) {
			t.Fatalf("read %d: %v", off, err)
		}
	}
	m := int64(1024)
	if got := readLog(t, l, 1025, 1000, &m); len(got) != 0 {
		t.Fatal("read at LEO with maxOffset must be empty")
	}
}

func TestLogLogRolls(t *testing.T) {
	e := newLogEnv(t)
	l := e.open(t, props(SegmentBytesProp, "100"), 0)
	const n = 100
	for i := range n {
		leaderAppend(t, l, msgSet(t, 0, 0, strconv.Itoa(i)))
	}
	var all []entryView
	offset := int64(0)
	for offset < l.LogEndOffset() {
		got := readLog(t, l, offset, 1024*1024, nil)
		all = append(all, got...)
		offset = got[len(got)-1].offset + 1
	}
	if len(all) != n {
		t.Fatalf("read %d messages", len(all))
	}
	for i, m := range all {
		if m.offset != int64(i) || m.value != strconv.Itoa(i) {
			t.Fatalf("message %d = %+v", i, m)
		}
	}
	if fd, _ := l.Read(n, 1024*1024, nil, false); fd.Records.SizeInBytes() != 0 {
		t.Fatal("read at LEO")
	}
}

func TestLogCompressedMessages(t *testing.T) {
	e := newLogEnv(t)
	l := e.open(t, props(SegmentBytesProp, "200"), 0)
	leaderAppend(t, l, msgSetCodec(t, record.MagicValueV1, record.GZIP, 0, 0, "hello", "there"))
	leaderAppend(t, l, msgSetCodec(t, record.MagicValueV1, record.GZIP, 0, 0, "alpha", "beta"))
	read := func(off int64) []entryView { return readLog(t, l, off, 4096, nil) }
	// Reading inside a wrapper returns the whole wrapper (shallow granularity).
	eqOffsets(t, read(0), 0, 1)
	eqOffsets(t, read(1), 0, 1)
	eqOffsets(t, read(2), 2, 3)
	eqOffsets(t, read(3), 2, 3)
}

func TestLogGarbageCollectingSegmentsDoesntChangeOffset(t *testing.T) {
	for _, count := range []int{0, 1, 2, 50, 51} {
		t.Run(strconv.Itoa(count), func(t *testing.T) {
			e := newLogEnv(t)
			l := e.open(t, props(SegmentBytesProp, "100", RetentionMsProp, "0"), 0)
			for i := range count {
				leaderAppend(t, l, msgSet(t, 0, 0, strconv.Itoa(i)))
			}
			curr := l.LogEndOffset()
			if curr != int64(count) {
				t.Fatal("LEO")
			}
			if _, err := l.DeleteOldSegmentsWith(func(*LogSegment) bool { return true }); err != nil {
				t.Fatal(err)
			}
			if l.LogEndOffset() != curr || l.NumberOfSegments() != 1 {
				t.Fatalf("after deleting all: LEO %d segments %d", l.LogEndOffset(), l.NumberOfSegments())
			}
			if count > 0 && l.ActiveSegment().BaseOffset() != curr {
				t.Fatal("a new segment must start at the old LEO")
			}
			leaderAppend(t, l, msgSet(t, 0, 0, "next"))
			if l.LogEndOffset() != curr+1 {
				t.Fatal("appending after deletion continues the offsets")
			}
		})
	}
}

func TestLogMessageSetSizeCheck(t *testing.T) {
	e := newLogEnv(t)
	set := msgSet(t, 0, 0, "You", "bethe", "bethe")
	l := e.open(t, props(SegmentBytesProp, strconv.Itoa(set.SizeInBytes()-1)), 0)
	if _, err := l.Append(set, true); !errors.Is(err, ErrRecordBatchTooLarge) {
		t.Fatalf("set larger than segment.bytes: %v", err)
	}
}

func TestLogCompactedTopicConstraints(t *testing.T) {
	e := newLogEnv(t)
	l := e.open(t, props(CleanupPolicyProp, "compact"), 0)
	if _, err := l.Append(msgSet(t, 0, 0, "no key"), true); !errors.Is(err, ErrInvalidMessage) {
		t.Fatalf("unkeyed message: %v", err)
	}
	if _, err := l.Append(msgSetCodec(t, record.MagicValueV1, record.GZIP, 0, 0, "no key"), true); !errors.Is(err, ErrInvalidMessage) {
		t.Fatalf("unkeyed compressed message: %v", err)
	}
	leaderAppend(t, l, keyedSet(t, 0, "k", "v"))
}

func TestLogMessageSizeCheck(t *testing.T) {
	e := newLogEnv(t)
	first := msgSet(t, 0, 0, "You", "bethe", "bethe")
	second := msgSet(t, 0, 0, "change (I need more bytes)")
	max := record.LogOverhead + record.RecordOverhead(record.MagicValueV1) + len("bethe")
	l := e.open(t, props(MaxMessageBytesProp, strconv.Itoa(max)), 0)
	leaderAppend(t, l, first)
	if _, err := l.Append(second, true); !errors.Is(err, ErrRecordTooLarge) {
		t.Fatalf("too large message: %v", err)
	}
}

func TestLogBuildTimeIndexWhenNotAssigningOffsets(t *testing.T) {
	e := newLogEnv(t)
	l := e.open(t, props(SegmentBytesProp, "10000", IndexIntervalBytesProp, "1"), 0)
	const n = 100
	now := e.tm.Milliseconds()
	for i := int64(0); i < n; i++ {
		if _, err := l.Append(msgSet(t, 100+i, now+i, strconv.Itoa(int(i))), false); err != nil {
			t.Fatal(err)
		}
	}
	entries := 0
	for _, s := range l.LogSegments() {
		entries += s.TimeIndex().Entries()
	}
	if entries != n-1 {
		t.Fatalf("%d time index entries, want %d", entries, n-1)
	}
	if got := l.ActiveSegment().TimeIndex().LastEntry().Timestamp; got != now+n-1 {
		t.Fatalf("last time index timestamp %d, want %d", got, now+n-1)
	}
}

func TestLogTruncateTo(t *testing.T) {
	e := newLogEnv(t)
	setSize := msgSet(t, 0, 0, "test").SizeInBytes()
	l := e.open(t, props(SegmentBytesProp, strconv.Itoa(5*setSize)), 0)
	for range 5 {
		leaderAppend(t, l, msgSet(t, 0, 0, "test"))
	}
	size := l.Size()
	must(t, l.TruncateTo(l.LogEndOffset())) // no-op
	must(t, l.TruncateTo(l.LogEndOffset()+1))
	if l.Size() != size || l.LogEndOffset() != 5 {
		t.Fatal("truncating at or beyond the end must do nothing")
	}
	must(t, l.TruncateTo(2))
	if l.LogEndOffset() != 2 || l.Size() != int64(2*setSize) {
		t.Fatalf("after truncateTo(2): LEO %d size %d", l.LogEndOffset(), l.Size())
	}
	must(t, l.TruncateTo(0))
	if l.LogEndOffset() != 0 || l.Size() != 0 {
		t.Fatal("truncateTo(0)")
	}
	for range 5 {
		leaderAppend(t, l, msgSet(t, 0, 0, "test"))
	}
	if l.LogEndOffset() != 5 {
		t.Fatal("append after truncation")
	}
	// Fill several segments, then truncate into the first one.
	for range 20 {
		leaderAppend(t, l, msgSet(t, 0, 0, "test"))
	}
	if l.NumberOfSegments() < 2 {
		t.Fatal("expected several segments")
	}
	must(t, l.TruncateTo(3))
	if l.NumberOfSegments() != 1 || l.LogEndOffset() != 3 || l.RecoveryPoint() > 3 {
		t.Fatalf("segments %d LEO %d rp %d", l.NumberOfSegments(), l.LogEndOffset(), l.RecoveryPoint())
	}
	// Truncation below the first segment restarts the log there.
	must(t, l.TruncateFullyAndStartAt(100))
	if l.LogStartOffset() != 100 || l.LogEndOffset() != 100 || l.NumberOfSegments() != 1 {
		t.Fatal("truncateFullyAndStartAt")
	}
}

func TestLogIndexResizingAtTruncation(t *testing.T) {
	e := newLogEnv(t)
	setSize := msgSet(t, 0, 0, "test").SizeInBytes()
	l := e.open(t, props(SegmentBytesProp, strconv.Itoa(5*setSize), SegmentIndexBytesProp, "80", IndexIntervalBytesProp, strconv.Itoa(setSize-1)), 0)
	if l.ActiveSegment().Index().MaxEntries() != 10 {
		t.Fatal("max entries")
	}
	for range 5 {
		leaderAppend(t, l, msgSet(t, 0, 0, "test"))
	}
	e.sleep(1)
	for range 5 {
		leaderAppend(t, l, msgSet(t, 0, 0, "test"))
	}
	if l.NumberOfSegments() != 2 {
		t.Fatalf("segments %d", l.NumberOfSegments())
	}
	first := l.LogSegments()[0]
	if first.Index().MaxEntries() != first.Index().Entries() {
		t.Fatal("the rolled segment's index must be trimmed")
	}
	must(t, l.TruncateTo(0))
	if l.NumberOfSegments() != 1 || l.ActiveSegment().Index().MaxEntries() != 10 {
		t.Fatal("truncation must re-extend the index to its max size")
	}
}

func TestLogAsyncDelete(t *testing.T) {
	e := newLogEnv(t)
	setSize := msgSet(t, 0, 0, "test").SizeInBytes()
	l := e.open(t, props(SegmentBytesProp, strconv.Itoa(5*setSize), FileDeleteDelayMsProp, "1000", RetentionMsProp, "999"), 0)
	for range 100 {
		leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds(), "test"))
	}
	segs := l.LogSegments()
	e.sleep(1000) // all segments older than retention.ms
	n, err := l.DeleteOldSegments()
	if err != nil || n != len(segs) {
		t.Fatalf("deleted %d of %d: %v", n, len(segs), err)
	}
	if l.NumberOfSegments() != 1 {
		t.Fatal("one fresh segment remains")
	}
	for _, s := range segs {
		if !strings.HasSuffix(s.Log().File(), DeletedFileSuffix) {
			t.Fatal("files must be renamed .deleted first")
		}
		if _, err := os.Stat(s.Log().File()); err != nil {
			t.Fatal(".deleted file must exist until the delay passes")
		}
	}
	e.sleep(1001)
	for _, s := range segs {
		if _, err := os.Stat(s.Log().File()); err == nil {
			t.Fatal(".deleted file must be gone after file.delete.delay.ms")
		}
	}
}

func TestLogAppendMessageWithNullPayload(t *testing.T) {
	e := newLogEnv(t)
	l := e.open(t, nil, 0)
	b := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, 0, -1, 0)
	if _, err := b.AppendWithOffset(0, 0, nil, nil); err != nil {
		t.Fatal(err)
	}
	leaderAppend(t, l, b.Build())
	fd, err := l.Read(0, 4096, nil, false)
	must(t, err)
	buf := make([]byte, fd.Records.SizeInBytes())
	_, _ = fd.Records.(*record.FileRecords).ReadInto(buf, 0)
	for e, err := range record.NewMemoryRecords(buf).ShallowEntries() {
		must(t, err)
		if !e.Record.HasNullValue() || e.Offset != 0 {
			t.Fatal("null payload must read back as null")
		}
	}
}

func TestLogAppendWithOutOfOrderOffsetsThrowsException(t *testing.T) {
	e := newLogEnv(t)
	l := e.open(t, nil, 0)
	b := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, 0, -1, 0)
	_, _ = b.AppendWithOffset(0, 0, nil, []byte("a"))
	_, _ = b.AppendWithOffset(2, 0, nil, []byte("b"))
	set := b.Build().Bytes()
	// Swap the two offsets by hand: 2 then 0.
	raw := append([]byte(nil), set...)
	second := record.LogOverhead + record.RecordSize(record.MagicValueV1, nil, []byte("a"))
	copy(raw[0:8], set[second:second+8])
	copy(raw[second:second+8], set[0:8])
	if _, err := l.Append(record.NewMemoryRecords(raw), false); !errors.Is(err, ErrIllegalArgument) {
		t.Fatalf("out of order follower append: %v", err)
	}
	// A follower append below the log end offset fails too.
	if _, err := l.Append(msgSet(t, 5, 0, "x"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(msgSet(t, 3, 0, "y"), false); !errors.Is(err, ErrIllegalArgument) {
		t.Fatalf("follower append below LEO: %v", err)
	}
}

func TestLogParseTopicPartitionName(t *testing.T) {
	for _, c := range []struct {
		name  string
		topic string
		part  int32
		ok    bool
	}{
		{"test_topic-1", "test_topic", 1, true},
		{"foo.bar-testtopic-1", "foo.bar-testtopic", 1, true},
		{"test.topic-1.f3b1b1a5d3a84a6b9e2e9a1e3f7a1b2c-delete", "test.topic", 1, true},
		{"topic-0.abcdef-delete", "topic", 0, true},
		{"", "", 0, false},
		{"test_topic", "", 0, false},
		{"-1", "", 0, false},
		{"test_topic-", "", 0, false},
		{"test_topic-foo", "", 0, false},
		{"topic-name.uniqueId-delete-x", "", 0, false},
		{"topic-1.-delete", "", 0, false},
	} {
		tp, err := ParseTopicPartitionName(filepath.Join("/tmp", c.name))
		if c.name == "" {
			tp, err = ParseTopicPartitionName("")
		}
		if c.ok != (err == nil) || (c.ok && (tp.Topic != c.topic || tp.Partition != c.part)) {
			t.Errorf("parse %q = %v, %v", c.name, tp, err)
		}
	}
}

func TestLogDeleteOldSegmentsMethod(t *testing.T) {
	e := newLogEnv(t)
	setSize := msgSet(t, 0, 0, "test").SizeInBytes()
	l := e.open(t, props(SegmentBytesProp, strconv.Itoa(5*setSize), RetentionMsProp, "999"), 0)
	for range 100 {
		leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds()-1000, "test"))
	}
	if l.NumberOfSegments() != 20 {
		t.Fatalf("segments %d", l.NumberOfSegments())
	}
	n, err := l.DeleteOldSegments()
	if err != nil || l.NumberOfSegments() != 1 || n != 20 {
		t.Fatalf("deleted %d, %d left: %v", n, l.NumberOfSegments(), err)
	}
	if l.LogStartOffset() != 100 || l.LogEndOffset() != 100 {
		t.Fatal("offsets after deleting everything")
	}
	// A compact-only log never deletes by retention.
	l.SetConfig(mustConfig(t, props(SegmentBytesProp, strconv.Itoa(5*setSize), RetentionMsProp, "999", CleanupPolicyProp, "compact")))
	for range 100 {
		leaderAppend(t, l, keyedSet(t, e.tm.Milliseconds()-1000, "k", "v"))
	}
	if n, _ := l.DeleteOldSegments(); n != 0 {
		t.Fatal("compact-only log deleted segments")
	}
	l.SetConfig(mustConfig(t, props(SegmentBytesProp, strconv.Itoa(5*setSize), RetentionMsProp, "999", CleanupPolicyProp, "compact,delete")))
	if n, _ := l.DeleteOldSegments(); n == 0 {
		t.Fatal("compact,delete log must delete by retention")
	}
}

func mustConfig(t *testing.T, p map[string]string) *LogConfig {
	t.Helper()
	c, err := NewLogConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLogConcurrentReadAppend (zkafka): readers never take the log lock, so a reader racing with
// appends and rolls must always see whole, correct messages up to the published log end.
func TestLogConcurrentReadAppend(t *testing.T) {
	e := newLogEnv(t)
	l := e.open(t, props(SegmentBytesProp, "2000", IndexIntervalBytesProp, "100"), 0)
	const n = 600
	done := make(chan error, 1)
	go func() {
		var err error
		defer func() { done <- err }()
		for next := int64(0); next < n; {
			leo := l.LogEndOffset()
			if next >= leo {
				continue
			}
			fd, rerr := l.Read(next, 4096, &leo, false)
			if rerr != nil {
				err = rerr
				return
			}
			buf := make([]byte, fd.Records.SizeInBytes())
			if fr, ok := fd.Records.(*record.FileRecords); ok {
				if _, rerr := fr.ReadInto(buf, 0); rerr != nil {
					err = rerr
					return
				}
			}
			for le, ierr := range record.NewMemoryRecords(buf).ShallowEntries() {
				if ierr != nil {
					err = ierr
					return
				}
				if le.Offset != next || string(le.Record.Value()) != strconv.FormatInt(next, 10) {
					err = errors.New("read " + strconv.FormatInt(le.Offset, 10) + " want " + strconv.FormatInt(next, 10))
					return
				}
				next++
			}
		}
	}()
	for i := 0; i < n; i++ {
		leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds(), strconv.Itoa(i)))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if l.NumberOfSegments() < 5 {
		t.Fatal("the test should have rolled several segments")
	}
}
