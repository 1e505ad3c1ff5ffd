package log

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// cleanlyClosed writes n one-message sets ("v0".."v<n-1>") to a fresh log with an index entry per
// set, closes it, and leaves the clean-shutdown marker, as LogManager.shutdown does.
func cleanlyClosed(t *testing.T, e *logEnv, p map[string]string, n int) *Log {
	t.Helper()
	l := e.open(t, p, 0)
	for i := range n {
		leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds()+int64(i), "v"+strconv.Itoa(i)))
	}
	must(t, l.Close())
	must(t, os.WriteFile(filepath.Join(filepath.Dir(e.dir), CleanShutdownFile), nil, 0o644))
	return l
}

// readEvery reads every offset below end one at a time and checks its value.
func readEvery(t *testing.T, l *Log, end int64) {
	t.Helper()
	for i := int64(0); i < end; i++ {
		got := readLog(t, l, i, 100, nil)
		if len(got) == 0 || got[0].offset != i || got[0].value != "v"+strconv.Itoa(int(i)) {
			t.Fatalf("read at offset %d returned %+v", i, got)
		}
	}
}

// TestCleanShutdownDamagedIndexEntryIsRebuilt: one offset-index entry damaged on disk (its
// position now that of an entry five further on) is caught on load although the shutdown was
// clean (the positions no longer increase), the index is rebuilt, and every offset reads back its
// own message. Trusting the file (0.10.2) made a fetch of that offset start at a later message.
func TestCleanShutdownDamagedIndexEntryIsRebuilt(t *testing.T) {
	e := newLogEnv(t)
	p := props(SegmentBytesProp, "1048576", IndexIntervalBytesProp, "1")
	const n = 380
	l := cleanlyClosed(t, e, p, n)
	index := l.ActiveSegment().Index().File()
	b, err := os.ReadFile(index)
	must(t, err)
	const a = 100 // entry a gets the position of entry a+5
	copy(b[a*OffsetIndexEntrySize+4:a*OffsetIndexEntrySize+8], b[(a+5)*OffsetIndexEntrySize+4:(a+5)*OffsetIndexEntrySize+8])
	must(t, os.WriteFile(index, b, 0o644))

	l2 := e.open(t, p, 0)
	defer l2.Close()
	if l2.LogEndOffset() != n {
		t.Fatalf("LEO %d, want %d", l2.LogEndOffset(), n)
	}
	readEvery(t, l2, n)
}

// TestCleanShutdownTornTailIsRecovered: the active segment ends in half a message although the
// shutdown was clean; the load notices (the tail does not parse to the end of the file), cuts
// the torn bytes, and later appends read back after the intact messages. Trusting the file
// (0.10.2) put the new messages behind the torn bytes, where they read back as one corrupt
// message.
func TestCleanShutdownTornTailIsRecovered(t *testing.T) {
	e := newLogEnv(t)
	p := props(SegmentBytesProp, "1048576", IndexIntervalBytesProp, "4096")
	const n = 50
	l := cleanlyClosed(t, e, p, n)
	logFile := l.ActiveSegment().Log().File()
	whole := msgSet(t, n, e.tm.Milliseconds(), "torn").Bytes()
	f, err := os.OpenFile(logFile, os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	_, err = f.Write(whole[:len(whole)/2])
	must(t, err)
	must(t, f.Close())

	l2 := e.open(t, p, 0)
	if l2.LogEndOffset() != n {
		t.Fatalf("LEO %d after the load, want %d", l2.LogEndOffset(), n)
	}
	for i := n; i < n+10; i++ {
		leaderAppend(t, l2, msgSet(t, 0, e.tm.Milliseconds()+int64(i), "v"+strconv.Itoa(i)))
	}
	readEvery(t, l2, n+10)
	must(t, l2.Close())
	l3 := e.open(t, p, 0)
	defer l3.Close()
	readEvery(t, l3, n+10)
}
