package log

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// The unit tests of Kafka 0.11's LeaderEpochFileCacheTest and LeaderEpochCheckpointFileTest that
// apply to zkafka, plus crash and Log-integration checks:
//
//	| 0.11 test                                              | here                                        |
//	|--------------------------------------------------------|---------------------------------------------|
//	| shouldAddEpochAndMessageOffsetToCache, ...NotOverwrite | TestLeaderEpochCacheAssign                  |
//	| shouldReturnUnsupportedIfNoEpochRecorded, ...NextEpoch | TestLeaderEpochCacheAssign (EndOffsetFor)   |
//	| shouldUpdateSavedOffsetWhenOffsetToClearToIsBetween... | TestLeaderEpochCacheTruncateFromStart       |
//	| shouldNotClearAnythingIfOffsetToEarly, ...ToLate       | both Truncate tests                         |
//	| shouldClearAllEntries, shouldDropEntriesBetween...     | TestLeaderEpochCacheTruncateFromEnd         |
//	| shouldPersistAndClearLatestAndEarliest (file written)  | TestLeaderEpochCacheTruncateFromEnd/Start   |
//	| LeaderEpochCheckpointFileTest.shouldPersistAndOverwrite| TestLeaderEpochCheckpointGoldenBytes        |
//	| (zkafka) a checkpoint cut short or altered             | TestLeaderEpochCacheRecoversFromTruncatedCheckpoint |
//	| (zkafka) the Log keeps its cache through truncation,   | TestLogLeaderEpochCacheFollowsTheLog        |
//	|   retention, a crash and recovery                      |                                             |

func newTestEpochCache(t *testing.T, leo *int64) (*LeaderEpochFileCache, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), LeaderEpochCheckpointFilename)
	cp, err := NewLeaderEpochCheckpointFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewLeaderEpochFileCache(common.TopicPartition{Topic: "t", Partition: 0}, func() int64 { return *leo }, cp, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c, path
}

func assign(t *testing.T, c *LeaderEpochFileCache, pairs ...int64) {
	t.Helper()
	for i := 0; i+1 < len(pairs); i += 2 {
		if err := c.Assign(int32(pairs[i]), pairs[i+1]); err != nil {
			t.Fatal(err)
		}
	}
}

func entries(pairs ...int64) []EpochEntry {
	var out []EpochEntry
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, EpochEntry{Epoch: int32(pairs[i]), StartOffset: pairs[i+1]})
	}
	return out
}

// fileEntries parses the checkpoint on disk (what a restart would read).
func fileEntries(t *testing.T, path string) []EpochEntry {
	t.Helper()
	cp, err := NewLeaderEpochCheckpointFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cp.Read()
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestLeaderEpochCacheAssign(t *testing.T) {
	leo := int64(0)
	c, path := newTestEpochCache(t, &leo)
	if c.LatestEpoch() != protocol.UndefinedEpoch || c.EndOffsetFor(0) != protocol.UndefinedEpochOffset {
		t.Fatalf("empty cache: latest %d, end of 0 %d", c.LatestEpoch(), c.EndOffsetFor(0))
	}
	assign(t, c, 2, 6, 3, 8, 5, 11)
	leo = 15
	// Ignored: an epoch already there, an older epoch, a newer epoch at an offset going back,
	// a negative epoch.
	assign(t, c, 5, 12, 4, 13, 6, 10)
	if err := c.Assign(-1, 20); err != nil {
		t.Fatal(err)
	}
	want := entries(2, 6, 3, 8, 5, 11)
	if got := c.EpochEntries(); !reflect.DeepEqual(got, want) {
		t.Fatalf("entries %v, want %v", got, want)
	}
	if got := fileEntries(t, path); !reflect.DeepEqual(got, want) {
		t.Fatalf("checkpoint holds %v, want %v", got, want)
	}
	if c.LatestEpoch() != 5 {
		t.Fatalf("latest epoch %d", c.LatestEpoch())
	}
	for _, tc := range []struct {
		epoch int32
		want  int64
	}{
		{protocol.UndefinedEpoch, protocol.UndefinedEpochOffset},
		{1, protocol.UndefinedEpochOffset}, // older than the oldest entry
		{2, 8},                             // the next epoch's start
		{3, 11},
		{4, 11},                            // not in the cache: where the first later epoch starts
		{5, 15},                            // the latest epoch: the log end offset
		{6, protocol.UndefinedEpochOffset}, // newer than anything here
	} {
		if got := c.EndOffsetFor(tc.epoch); got != tc.want {
			t.Errorf("EndOffsetFor(%d) = %d, want %d", tc.epoch, got, tc.want)
		}
	}
	// A new epoch may start where the previous one did (a leader that appended nothing).
	assign(t, c, 6, 11)
	if got := c.EndOffsetFor(5); got != 11 {
		t.Fatalf("EndOffsetFor(5) after an empty epoch 5 = %d, want 11", got)
	}
}

// Truncating the log from the end (a follower truncating to its leader's offset) clears the
// epochs that start at or after the new end.
func TestLeaderEpochCacheTruncateFromEnd(t *testing.T) {
	leo := int64(20)
	c, path := newTestEpochCache(t, &leo)
	assign(t, c, 2, 6, 3, 8, 4, 11)
	for _, tc := range []struct {
		offset int64
		want   []EpochEntry
	}{
		{12, entries(2, 6, 3, 8, 4, 11)}, // beyond the latest start: nothing to clear
		{-1, entries(2, 6, 3, 8, 4, 11)},
		{11, entries(2, 6, 3, 8)},
		{7, entries(2, 6)},
		{6, nil},
	} {
		if err := c.ClearAndFlushLatest(tc.offset); err != nil {
			t.Fatal(err)
		}
		if got := c.EpochEntries(); !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("after ClearAndFlushLatest(%d): %v, want %v", tc.offset, got, tc.want)
		}
		if got := fileEntries(t, path); !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("checkpoint after ClearAndFlushLatest(%d): %v, want %v", tc.offset, got, tc.want)
		}
	}
	assign(t, c, 7, 3)
	if err := c.ClearAndFlush(); err != nil || len(fileEntries(t, path)) != 0 || c.LatestEpoch() != protocol.UndefinedEpoch {
		t.Fatalf("ClearAndFlush: %v, file %v", err, fileEntries(t, path))
	}
}

// Truncating the log from the start (retention deleted the oldest segments) keeps the epoch of
// the new first offset, moved up to it.
func TestLeaderEpochCacheTruncateFromStart(t *testing.T) {
	leo := int64(20)
	c, path := newTestEpochCache(t, &leo)
	assign(t, c, 2, 6, 3, 8, 4, 11)
	for _, tc := range []struct {
		offset int64
		want   []EpochEntry
	}{
		{6, entries(2, 6, 3, 8, 4, 11)}, // exclusive: the entry at 6 stays
		{5, entries(2, 6, 3, 8, 4, 11)},
		{8, entries(3, 8, 4, 11)}, // an entry starts at 8: epoch 2 simply goes
		{9, entries(3, 9, 4, 11)}, // 9 is inside epoch 3: epoch 3 now starts at 9
		{15, entries(4, 15)},      // past every start: the latest epoch starts at 15
		{15, entries(4, 15)},      // idempotent
		{-3, entries(4, 15)},      // ignored
		{100, entries(4, 100)},    // even beyond the log end, as 0.11 does
	} {
		if err := c.ClearAndFlushEarliest(tc.offset); err != nil {
			t.Fatal(err)
		}
		if got := c.EpochEntries(); !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("after ClearAndFlushEarliest(%d): %v, want %v", tc.offset, got, tc.want)
		}
		if got := fileEntries(t, path); !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("checkpoint after ClearAndFlushEarliest(%d): %v, want %v", tc.offset, got, tc.want)
		}
	}
	if got := c.EndOffsetFor(4); got != leo {
		t.Fatalf("EndOffsetFor(latest) = %d, want the LEO %d", got, leo)
	}
}

// The file is Kafka 0.11's leader-epoch-checkpoint byte for byte, written through a temporary
// file that does not survive the write.
func TestLeaderEpochCheckpointGoldenBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), LeaderEpochCheckpointFilename)
	cp, err := NewLeaderEpochCheckpointFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := cp.Read(); err != nil || len(got) != 0 {
		t.Fatalf("new file: %v %v", got, err)
	}
	if err := cp.Write(entries(0, 0, 3, 120, 7, 9223372036854775807)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "0\n3\n0 0\n3 120\n7 9223372036854775807\n"; string(b) != want {
		t.Fatalf("file %q, want %q", b, want)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Fatalf("temporary file left: %v", err)
	}
	if err := cp.Write(entries(9, 1)); err != nil {
		t.Fatal(err)
	}
	if got := fileEntries(t, path); !reflect.DeepEqual(got, entries(9, 1)) {
		t.Fatalf("overwritten file holds %v", got)
	}
	for _, bad := range []string{
		"1\n0\n",           // unknown version
		"0\n2\n1 5\n",      // cut short: fewer entries than announced
		"0\n1\n1 5 7\n",    // three fields
		"0\n1\nx 5\n",      // not a number
		"0\n2\n3 5\n2 9\n", // epochs going back
		"0\n2\n2 9\n3 5\n", // offsets going back
		"0\n1\n-1 5\n",     // negative epoch
		"0\n1\n1 -5\n",     // negative offset
		"0\n1\n3000000000 5\n",
	} {
		if _, err := ParseLeaderEpochCheckpoint(strings.NewReader(bad)); !errors.Is(err, ErrMalformedLeaderEpochCheckpoint) {
			t.Errorf("%q: %v, want ErrMalformedLeaderEpochCheckpoint", bad, err)
		}
	}
	for _, ok := range []string{"", "0\n", "0\r\n1\r\n4\t 8\r\n"} {
		if _, err := ParseLeaderEpochCheckpoint(strings.NewReader(ok)); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// A checkpoint cut short (or altered outside the broker) is not trusted in part: the cache
// starts empty and rewrites the file, every epoch then ends at UndefinedEpochOffset (followers
// fall back to their high watermark), and new epochs are recorded as usual.
func TestLeaderEpochCacheRecoversFromTruncatedCheckpoint(t *testing.T) {
	full := string(FormatLeaderEpochCheckpoint(entries(2, 6, 3, 8, 4, 11)))
	for _, cut := range []int{len(full) - 2, len(full) - 3, len(full) - 8, 3} {
		t.Run(strings.ReplaceAll(full[:cut], "\n", "|"), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, LeaderEpochCheckpointFilename)
			if err := os.WriteFile(path, []byte(full[:cut]), 0o644); err != nil {
				t.Fatal(err)
			}
			cp, err := NewLeaderEpochCheckpointFile(path)
			if err != nil {
				t.Fatal(err)
			}
			leo := int64(30)
			c, err := NewLeaderEpochFileCache(common.TopicPartition{Topic: "t"}, func() int64 { return leo }, cp, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.EpochEntries(); len(got) != 0 {
				t.Fatalf("entries %v from a truncated file", got)
			}
			for _, e := range []int32{2, 3, 4} {
				if got := c.EndOffsetFor(e); got != protocol.UndefinedEpochOffset {
					t.Fatalf("EndOffsetFor(%d) = %d, want undefined", e, got)
				}
			}
			if b, _ := os.ReadFile(path); string(b) != "0\n0\n" {
				t.Fatalf("file not rewritten: %q", b)
			}
			assign(t, c, 5, 30)
			if got := fileEntries(t, path); !reflect.DeepEqual(got, entries(5, 30)) || c.EndOffsetFor(5) != 30 {
				t.Fatalf("after a new epoch: %v", got)
			}
		})
	}
}

// FuzzParseLeaderEpochCheckpoint: whatever parses is a valid history and survives a write/parse
// round trip.
func FuzzParseLeaderEpochCheckpoint(f *testing.F) {
	f.Add("0\n3\n0 0\n3 120\n7 9223372036854775807\n")
	f.Add("0\n0\n")
	f.Add("0\r\n1\r\n4 8")
	f.Fuzz(func(t *testing.T, s string) {
		es, err := ParseLeaderEpochCheckpoint(strings.NewReader(s))
		if err != nil {
			return
		}
		for i := 1; i < len(es); i++ {
			if es[i].Epoch <= es[i-1].Epoch || es[i].StartOffset < es[i-1].StartOffset {
				t.Fatalf("accepted an invalid history %v", es)
			}
		}
		back, err := ParseLeaderEpochCheckpoint(strings.NewReader(string(FormatLeaderEpochCheckpoint(es))))
		if err != nil || len(back) != len(es) || (len(es) > 0 && !reflect.DeepEqual(back, es)) {
			t.Fatalf("round trip of %v: %v %v", es, back, err)
		}
	})
}

// The Log keeps the cache in step with its data: truncation from the end clears later epochs,
// deleting old segments moves the first epoch up, emptying the log clears everything; the
// checkpoint survives a crash (no Close) and what recovery cut off is forgotten; a stale
// checkpoint can be deleted.
func TestLogLeaderEpochCacheFollowsTheLog(t *testing.T) {
	e := newLogEnv(t)
	p := props(SegmentBytesProp, "300", RetentionMsProp, "100000", FileDeleteDelayMsProp, "0")
	l := e.open(t, p, 0)
	if err := l.initializeLeaderEpochCache(true); err != nil {
		t.Fatal(err)
	}
	c := l.LeaderEpochCache()
	if err := l.MaybeAssignEpochStartOffset(1, 0); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds(), strings.Repeat("a", 40), strings.Repeat("b", 40)))
		if i == 4 {
			if err := l.MaybeAssignEpochStartOffset(3, l.LogEndOffset()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if l.NumberOfSegments() < 3 {
		t.Fatalf("%d segments; the test needs several", l.NumberOfSegments())
	}
	assignAt := l.LogEndOffset()
	if err := l.MaybeAssignEpochStartOffset(5, assignAt); err != nil {
		t.Fatal(err)
	}
	leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds(), "c"))
	if got := c.EpochEntries(); !reflect.DeepEqual(got, entries(1, 0, 3, 10, 5, 20)) {
		t.Fatalf("entries %v", got)
	}
	if c.EndOffsetFor(5) != 21 || c.EndOffsetFor(3) != 20 || c.EndOffsetFor(1) != 10 {
		t.Fatalf("end offsets %d %d %d", c.EndOffsetFor(5), c.EndOffsetFor(3), c.EndOffsetFor(1))
	}

	// Truncation to an offset inside epoch 3 removes epoch 5; to the log end nothing.
	if err := l.TruncateTo(l.LogEndOffset()); err != nil {
		t.Fatal(err)
	}
	if err := l.TruncateTo(15); err != nil {
		t.Fatal(err)
	}
	if got := c.EpochEntries(); !reflect.DeepEqual(got, entries(1, 0, 3, 10)) {
		t.Fatalf("after TruncateTo(15): %v", got)
	}

	// Retention deletes the segments wholly below the oldest kept one: epoch 1 moves up (or goes).
	e.tm.Sleep(200 * time.Second)
	leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds(), "d"))
	n, err := l.DeleteOldSegmentsWith(func(s *LogSegment) bool { return s.BaseOffset() < 8 })
	if err != nil || n == 0 {
		t.Fatalf("deleted %d segments: %v", n, err)
	}
	start := l.LogStartOffset()
	want := entries(1, start, 3, 10)
	if start >= 10 {
		want = entries(3, start)
	}
	if got := c.EpochEntries(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after deleting segments below %d: %v, want %v", start, got, want)
	}

	// A crash: no Close; the files are what a reopened log reads. An entry beyond the recovered
	// log end (here written by hand: a tail the crash lost) is forgotten, one at the log end kept.
	leo := l.LogEndOffset()
	if err := l.MaybeAssignEpochStartOffset(6, leo); err != nil {
		t.Fatal(err)
	}
	cp, err := NewLeaderEpochCheckpointFile(filepath.Join(e.dir, LeaderEpochCheckpointFilename))
	if err != nil {
		t.Fatal(err)
	}
	onDisk := append(c.EpochEntries(), EpochEntry{Epoch: 7, StartOffset: leo + 5})
	if err := cp.Write(onDisk); err != nil {
		t.Fatal(err)
	}
	again, err := NewLog(e.dir, l.Config(), 0, e.sched, e.tm, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = again.Close() })
	if err := again.initializeLeaderEpochCache(true); err != nil {
		t.Fatal(err)
	}
	if got := again.LeaderEpochCache().EpochEntries(); !reflect.DeepEqual(got, onDisk[:len(onDisk)-1]) {
		t.Fatalf("after the crash: %v, want %v", got, onDisk[:len(onDisk)-1])
	}

	// Emptying the log (a follower restarting at its leader's start offset) clears the history.
	if err := again.TruncateFullyAndStartAt(100); err != nil {
		t.Fatal(err)
	}
	if got := again.LeaderEpochCache().EpochEntries(); len(got) != 0 {
		t.Fatalf("after TruncateFullyAndStartAt: %v", got)
	}

	// Mode off: the stale file goes.
	again.removeLeaderEpochCheckpoint()
	if _, err := os.Stat(filepath.Join(e.dir, LeaderEpochCheckpointFilename)); !os.IsNotExist(err) {
		t.Fatalf("stale checkpoint kept: %v", err)
	}
}

// LogManager gives every log it creates or loads a cache when LeaderEpochCache is set, and the
// checkpoint carries the history across a restart; a manager with the mode off deletes it when
// told (RemoveLeaderEpochCheckpoints), not while loading.
func TestLogManagerLeaderEpochCache(t *testing.T) {
	e := newLMEnv(t)
	dir := t.TempDir()
	open := func(on bool) *LogManager {
		m, err := NewLogManager(LogManagerConfig{LogDirs: []string{dir}, DefaultConfig: lmConfig(t, nil),
			IOThreads: 1, FlushCheck: time.Second, FlushCheckpoint: time.Hour, RetentionCheck: time.Hour,
			LeaderEpochCache: on}, e.sched, nil, e.time, nil)
		if err != nil {
			t.Fatal(err)
		}
		m.Startup()
		return m
	}
	tp := common.TopicPartition{Topic: lmTopic, Partition: 3}
	file := filepath.Join(dir, tp.String(), LeaderEpochCheckpointFilename)
	m := open(true)
	l, err := m.CreateLog(tp, lmConfig(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if l.LeaderEpochCache() == nil {
		t.Fatal("no cache on a created log")
	}
	if err := l.MaybeAssignEpochStartOffset(4, 0); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, singletonRecords(t, nil, []byte("v")), true)
	if err := m.Shutdown(); err != nil {
		t.Fatal(err)
	}
	m = open(true)
	if got := m.GetLog(tp).LeaderEpochCache().EpochEntries(); !reflect.DeepEqual(got, entries(4, 0)) {
		t.Fatalf("loaded %v", got)
	}
	if err := m.Shutdown(); err != nil {
		t.Fatal(err)
	}
	m = open(false)
	defer m.Shutdown()
	if m.GetLog(tp).LeaderEpochCache() != nil || m.GetLog(tp).MaybeAssignEpochStartOffset(5, 1) != nil {
		t.Fatal("a cache with the mode off")
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("checkpoint deleted before RemoveLeaderEpochCheckpoints: %v", err)
	}
	m.RemoveLeaderEpochCheckpoints()
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("checkpoint kept with the mode off: %v", err)
	}
}
