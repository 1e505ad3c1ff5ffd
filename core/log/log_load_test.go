package log

// Kafka 0.10.2 LogTest ports about loading and recovery (see the table in log_test.go).

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/record"
)

func TestLogRecoversToCorrectOffset(t *testing.T) {
	e := newLogEnv(t)
	p := props(SegmentBytesProp, "200", IndexIntervalBytesProp, "1")
	l := e.open(t, p, 0)
	for i := range 100 {
		leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds()+int64(i), strconv.Itoa(i)))
	}
	if l.LogEndOffset() != 100 {
		t.Fatal("LEO")
	}
	must(t, l.Close())
	type state struct {
		leo, lastIdx int64
		idxEntries   int
		timeEntries  int
		lastTime     TimestampOffset
		segments     int
	}
	snap := func(l *Log) state {
		a := l.ActiveSegment()
		return state{l.LogEndOffset(), a.Index().LastOffset(), a.Index().Entries(), a.TimeIndex().Entries(),
			a.TimeIndex().LastEntry(), l.NumberOfSegments()}
	}
	// Reopen with the recovery point at the end: nothing is recovered.
	l2 := e.open(t, p, 100)
	clean := snap(l2)
	must(t, l2.Close())
	// Reopen recovering every segment: the rebuilt indexes are the same.
	l3 := e.open(t, p, 0)
	if got := snap(l3); got != clean || got.leo != 100 {
		t.Fatalf("recovered state %+v, clean state %+v", got, clean)
	}
}

func TestLogIndexRebuild(t *testing.T) {
	e := newLogEnv(t)
	p := props(SegmentBytesProp, "200", IndexIntervalBytesProp, "1")
	l := e.open(t, p, 0)
	for i := range 200 {
		leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds()+int64(i)*10, strconv.Itoa(i)))
	}
	var indexFiles []string
	for _, s := range l.LogSegments() {
		indexFiles = append(indexFiles, s.Index().File(), s.TimeIndex().File())
	}
	must(t, l.Close())
	for _, f := range indexFiles {
		must(t, os.Remove(f))
	}
	l2 := e.open(t, p, 0)
	if l2.LogEndOffset() != 200 {
		t.Fatalf("LEO %d", l2.LogEndOffset())
	}
	for i := int64(0); i < 200; i++ {
		if got := readLog(t, l2, i, 100, nil); got[0].offset != i {
			t.Fatalf("read %d", i)
		}
		to, ok, err := l2.FetchOffsetsByTimestamp(e.tm.Milliseconds() + i*10)
		if err != nil || !ok || to.Offset != i {
			t.Fatalf("timestamp lookup %d = %v %v %v", i, to, ok, err)
		}
	}
}

func TestLogRebuildTimeIndexForOldMessages(t *testing.T) {
	e := newLogEnv(t)
	p := props(SegmentBytesProp, "200", IndexIntervalBytesProp, "1", MessageFormatVersionProp, "0.9.0")
	l := e.open(t, p, 0)
	for i := range 200 {
		leaderAppend(t, l, msgSetCodec(t, record.MagicValueV0, record.NONE, 0, record.NoTimestamp, strconv.Itoa(i)))
	}
	var tfiles []string
	for _, s := range l.LogSegments() {
		tfiles = append(tfiles, s.TimeIndex().File())
	}
	must(t, l.Close())
	for _, f := range tfiles {
		must(t, os.Remove(f))
	}
	l2 := e.open(t, p, 0)
	for _, s := range l2.LogSegments() {
		if s.TimeIndex().Entries() != 0 {
			t.Fatal("magic-0 segments get empty time indexes")
		}
		if _, err := os.Stat(s.TimeIndex().File()); err != nil {
			t.Fatal("missing time index must be recreated")
		}
	}
}

func TestLogCorruptIndexRebuild(t *testing.T) {
	e := newLogEnv(t)
	p := props(SegmentBytesProp, "200", IndexIntervalBytesProp, "1")
	l := e.open(t, p, 0)
	for i := range 200 {
		leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds()+int64(i)*10, strconv.Itoa(i)))
	}
	var files []string
	for _, s := range l.LogSegments() {
		files = append(files, s.Index().File(), s.TimeIndex().File())
	}
	must(t, l.Close())
	// Zero every index: the sanity check fails and both indexes are rebuilt.
	for _, f := range files {
		must(t, os.WriteFile(f, make([]byte, 1024), 0o644))
	}
	l2 := e.open(t, p, 200)
	for i := int64(0); i < 200; i++ {
		if got := readLog(t, l2, i, 100, nil); got[0].offset != i {
			t.Fatalf("read %d", i)
		}
		to, ok, err := l2.FetchOffsetsByTimestamp(e.tm.Milliseconds() + i*10)
		if err != nil || !ok || to.Offset != i {
			t.Fatalf("timestamp lookup %d = %v %v %v", i, to, ok, err)
		}
	}
}

func TestLogBogusIndexSegmentsAreRemoved(t *testing.T) {
	e := newLogEnv(t)
	must(t, os.MkdirAll(e.dir, 0o755))
	bogusIndex1 := IndexFilename(e.dir, 0)
	bogusTimeIndex1 := TimeIndexFilename(e.dir, 0)
	bogusIndex2 := IndexFilename(e.dir, 5)
	bogusTimeIndex2 := TimeIndexFilename(e.dir, 5)
	for _, f := range []string{bogusIndex1, bogusTimeIndex1, bogusIndex2, bogusTimeIndex2} {
		must(t, os.WriteFile(f, nil, 0o644))
	}
	l := e.open(t, props(SegmentIndexBytesProp, "1000", IndexIntervalBytesProp, "1"), 0)
	if fileSize(t, bogusIndex1) == 0 || fileSize(t, bogusTimeIndex1) == 0 {
		t.Fatal("the new segment 0 index must be preallocated")
	}
	for _, f := range []string{bogusIndex2, bogusTimeIndex2} {
		if _, err := os.Stat(f); err == nil {
			t.Fatalf("orphan %s not removed", f)
		}
	}
	for range 5 {
		leaderAppend(t, l, msgSet(t, 0, 0, "test"))
	}
}

func TestLogReopenThenTruncate(t *testing.T) {
	e := newLogEnv(t)
	p := props(SegmentBytesProp, "1000", SegmentIndexBytesProp, "1000", IndexIntervalBytesProp, "10000")
	l := e.open(t, p, 0)
	must(t, l.Close())
	l2 := e.open(t, p, 0)
	must(t, l2.TruncateTo(3))
	if l2.NumberOfSegments() != 1 || l2.ActiveSegment().Index().MaxEntries() != 125 {
		t.Fatal("reopened log must have its active index re-extended")
	}
}

func TestLogOpenDeletesObsoleteFiles(t *testing.T) {
	e := newLogEnv(t)
	setSize := msgSet(t, 0, 0, "test").SizeInBytes()
	p := props(SegmentBytesProp, strconv.Itoa(5*setSize), FileDeleteDelayMsProp, "100000", RetentionMsProp, "999")
	l := e.open(t, p, 0)
	for range 100 {
		leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds(), "test"))
	}
	e.tm.Sleep(1000 * time.Millisecond)
	if _, err := l.DeleteOldSegments(); err != nil {
		t.Fatal(err)
	}
	must(t, l.Close())
	l2 := e.open(t, p, 0)
	if l2.NumberOfSegments() != 1 {
		t.Fatal("segments")
	}
	for _, n := range listDir(t, e.dir) {
		if strings.HasSuffix(n, DeletedFileSuffix) {
			t.Fatalf("%s survived reopening", n)
		}
	}
}

func TestLogCorruptLog(t *testing.T) {
	e := newLogEnv(t)
	p := props(SegmentBytesProp, "1000", IndexIntervalBytesProp, "1")
	for iter := range 10 {
		l := e.open(t, p, 0)
		for i := range 10 {
			leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds(), strconv.Itoa(i)))
		}
		end := l.LogEndOffset()
		logFile := l.ActiveSegment().Log().File()
		must(t, l.Close())
		// Append garbage to the segment, reopen without the clean-shutdown marker.
		f, err := os.OpenFile(logFile, os.O_WRONLY|os.O_APPEND, 0)
		must(t, err)
		_, _ = f.Write([]byte{0, 0, 0, 0, 0, 0, 0, byte(iter), 0, 0, 0, 30, 1, 2, 3, 4, 5, 6, 7})
		f.Close()
		l2 := e.open(t, p, 0)
		if l2.LogEndOffset() != end {
			t.Fatalf("iteration %d: LEO %d, want %d", iter, l2.LogEndOffset(), end)
		}
		must(t, l2.Close())
		must(t, os.RemoveAll(e.dir))
	}
}

func TestLogCleanShutdownFile(t *testing.T) {
	e := newLogEnv(t)
	p := props(SegmentBytesProp, "1000", IndexIntervalBytesProp, "10000")
	must(t, os.MkdirAll(e.dir, 0o755))
	marker := filepath.Join(filepath.Dir(e.dir), CleanShutdownFile)
	must(t, os.WriteFile(marker, nil, 0o644))
	l := e.open(t, p, 0)
	if l.RecoveryPoint() != 0 {
		t.Fatal("empty log recovery point")
	}
	for range 10 {
		leaderAppend(t, l, msgSet(t, 0, 0, "test"))
	}
	must(t, l.Close())
	// With the marker the recovery point jumps to the end (nothing is scanned).
	l2 := e.open(t, p, 0)
	if l2.RecoveryPoint() != l2.LogEndOffset() || l2.LogEndOffset() != 10 {
		t.Fatalf("recovery point %d LEO %d", l2.RecoveryPoint(), l2.LogEndOffset())
	}
	must(t, l2.Close())
	must(t, os.Remove(marker))
	l3 := e.open(t, p, 0)
	if l3.RecoveryPoint() != 0 || l3.LogEndOffset() != 10 {
		t.Fatal("without the marker the recovery point stays where the caller put it")
	}
}

func TestLogOverCompactedLogRecovery(t *testing.T) {
	e := newLogEnv(t)
	l := e.open(t, props(SegmentBytesProp, "1000", MaxMessageBytesProp, "65536", IndexIntervalBytesProp, "1"), 0)
	const maxInt = int64(2147483647)
	follower := func(offset int64, v string) {
		b := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, offset, -1, 0)
		if _, err := b.AppendWithOffset(offset, e.tm.Milliseconds(), []byte("k"+v), []byte("v"+v)); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Append(b.Build(), false); err != nil {
			t.Fatal(err)
		}
	}
	follower(0, "1")
	if l.ActiveSegment().BaseOffset() != 0 {
		t.Fatal("first segment")
	}
	// Relative offset overflow rolls to max(last - MaxInt32, LEO) = max(2, 1).
	follower(maxInt+2, "3")
	if l.ActiveSegment().BaseOffset() != 2 {
		t.Fatalf("base %d, want 2", l.ActiveSegment().BaseOffset())
	}
	// max(3, MaxInt32+3).
	follower(maxInt+3, "4")
	if l.ActiveSegment().BaseOffset() != maxInt+3 {
		t.Fatalf("base %d, want MaxInt32+3", l.ActiveSegment().BaseOffset())
	}
	follower(maxInt+4, "5")
	if l.ActiveSegment().BaseOffset() != maxInt+3 {
		t.Fatal("set4 goes into the existing segment")
	}
	must(t, l.Close())
	n := 0
	for _, name := range listDir(t, e.dir) {
		if !strings.HasSuffix(name, IndexFileSuffix) {
			continue
		}
		n++
		base, err := strconv.ParseInt(strings.TrimSuffix(name, IndexFileSuffix), 10, 64)
		must(t, err)
		oi, err := NewOffsetIndex(filepath.Join(e.dir, name), base, 1000, nil)
		must(t, err)
		if oi.LastOffset() < 0 {
			t.Fatalf("%s: last offset %d", name, oi.LastOffset())
		}
		must(t, oi.SanityCheck())
		must(t, oi.Close())
	}
	if n != 3 {
		t.Fatalf("%d index files, want 3", n)
	}
	// And the log reopens (recovering every segment) with the same end.
	l2 := e.open(t, props(SegmentBytesProp, "1000", MaxMessageBytesProp, "65536", IndexIntervalBytesProp, "1"), 0)
	if l2.LogEndOffset() != maxInt+5 || l2.NumberOfSegments() != 3 {
		t.Fatalf("reopened: LEO %d segments %d", l2.LogEndOffset(), l2.NumberOfSegments())
	}
}

// TestLogIndexFileSizesAcrossReopen: closing trims the active segment's indexes to their
// entries; loading gives them back max.index.size (0.10.2's resize of the active
// segment's indexes), with the entries intact; a resize to the size they have is a no-op
// that keeps them.
func TestLogIndexFileSizesAcrossReopen(t *testing.T) {
	e := newLogEnv(t)
	p := props(SegmentBytesProp, "100000", IndexIntervalBytesProp, "1", SegmentIndexBytesProp, "4096")
	l := e.open(t, p, 0)
	for range 10 {
		leaderAppend(t, l, msgSet(t, 0, 0, "test"))
	}
	n, tn := l.ActiveSegment().Index().Entries(), l.ActiveSegment().TimeIndex().Entries()
	if n < 5 || tn < 1 {
		t.Fatalf("%d index entries, %d time index entries", n, tn)
	}
	must(t, l.Close())
	size := func(name string) int64 {
		t.Helper()
		st, err := os.Stat(filepath.Join(e.dir, name))
		must(t, err)
		return st.Size()
	}
	idx, tidx := filepath.Base(IndexFilename(e.dir, 0)), filepath.Base(TimeIndexFilename(e.dir, 0))
	if size(idx) != int64(n*OffsetIndexEntrySize) || size(tidx) != int64(tn*TimeIndexEntrySize) {
		t.Fatalf("after close: index %d bytes, time index %d bytes", size(idx), size(tidx))
	}
	l2 := e.open(t, p, 0)
	defer l2.Close()
	active := l2.ActiveSegment()
	wantIdx, wantTidx := int64(4096/OffsetIndexEntrySize*OffsetIndexEntrySize), int64(4096/TimeIndexEntrySize*TimeIndexEntrySize)
	if size(idx) != wantIdx || size(tidx) != wantTidx {
		t.Fatalf("after load: index %d bytes, time index %d bytes; want %d, %d", size(idx), size(tidx), wantIdx, wantTidx)
	}
	if active.Index().Entries() != n || active.TimeIndex().Entries() != tn {
		t.Fatalf("entries after load: %d, %d", active.Index().Entries(), active.TimeIndex().Entries())
	}
	must(t, active.Index().Resize(4096))
	if size(idx) != wantIdx || active.Index().Entries() != n {
		t.Fatalf("after a resize to the same size: %d bytes, %d entries", size(idx), active.Index().Entries())
	}
	if got := active.Index().Lookup(7); got.Offset != 7 {
		t.Fatalf("lookup 7 after reload: %+v", got)
	}
}
