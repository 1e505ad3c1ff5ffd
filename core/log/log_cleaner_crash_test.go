package log

// Crash safety of the cleaner's swap protocol (Kafka 0.10.2 LogCleanerTest.testRecoveryAfterCrash
// and the finer-grained steps below). Cleaning writes <base>.*.cleaned, renames them to .swap
// (Log.ReplaceSegments), renames the replaced segments to .deleted, drops the .swap suffix, and
// deletes the .deleted files after file.delete.delay.ms. Each scenario cleans a log for real,
// then rewinds or advances the files on disk to the state a crash at one step would leave,
// reopens the log, and checks that every key still reads its latest value and no temporary
// file survives.

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkafka/zkafka/core/utils"
)

// crashFixture is a cleaned log, closed, with the files of the cleaning still on disk.
type crashFixture struct {
	e           *cleanerEnv
	config      *LogConfig
	allKeys     []int          // keys before cleaning, in log order
	cleanedKeys []int          // keys after cleaning, in log order
	latest      map[int]string // key -> latest value
	cleanedBase int64          // base offset of the cleaned segment
	oldBases    []int64        // bases of the segments it replaced
}

// latestValues maps each key to the value of its last message.
func latestValues(t *testing.T, l *Log) map[int]string {
	out := map[int]string{}
	for _, e := range shallowRecords(t, l) {
		k, err := strconv.Atoi(string(e.Record.Key()))
		if err != nil {
			t.Fatal(err)
		}
		out[k] = string(e.Record.Value())
	}
	return out
}

func newCrashFixture(t *testing.T) *crashFixture {
	e := newCleanerEnv(t)
	f := &crashFixture{e: e, config: e.config(map[string]string{
		SegmentBytesProp: "300", IndexIntervalBytesProp: "1", FileDeleteDelayMsProp: "10"})}
	l, err := NewLog(e.dir, f.config, 0, e.sched, e.time, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; l.NumberOfSegments() < 10; i++ {
		mustAppend(t, l, intRecord(t, i%7, i), true)
	}
	f.allKeys = keysInLog(t, l)
	f.latest = latestValues(t, l)
	cleaner := e.makeCleaner(math.MaxInt32, nil, 0)
	m := newFakeOffsetMap(math.MaxInt32)
	segs := l.LogSegments()[:9]
	for _, s := range segs {
		f.oldBases = append(f.oldBases, s.BaseOffset())
	}
	f.cleanedBase = segs[0].BaseOffset()
	if err := cleaner.buildOffsetMap(l, 0, l.ActiveSegment().BaseOffset(), m, newCleanerStats(e.time)); err != nil {
		t.Fatal(err)
	}
	if err := cleaner.cleanSegments(l, segs, m, 0, newCleanerStats(e.time)); err != nil {
		t.Fatal(err)
	}
	f.cleanedKeys = keysInLog(t, l)
	if len(f.cleanedKeys) >= len(f.allKeys) {
		t.Fatalf("cleaning removed nothing: %d -> %d keys", len(f.allKeys), len(f.cleanedKeys))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// The old log's pending deletions belong to a process that "crashed": never run them.
	e.sched = utils.NewMockScheduler(e.time)
	return f
}

func (f *crashFixture) path(base int64, suffix string) string {
	return filepath.Join(f.e.dir, FilenamePrefixFromOffset(base)+suffix)
}

func (f *crashFixture) rename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

// cleanedFiles are the three files of the cleaned segment under their final names.
var segmentSuffixes = []string{LogFileSuffix, IndexFileSuffix, TimeIndexFileSuffix}

// restoreOld renames old segment files from .deleted back to their names (the swap never
// reached them); only the given bases.
func (f *crashFixture) restoreOld(t *testing.T, bases []int64) {
	for _, b := range bases {
		for _, s := range segmentSuffixes {
			f.rename(t, f.path(b, s+DeletedFileSuffix), f.path(b, s))
		}
	}
}

// cleanedTo renames the cleaned segment's files (those in suffixes) from their final name to
// name+suffix.
func (f *crashFixture) cleanedTo(t *testing.T, tempSuffix string, suffixes ...string) {
	for _, s := range suffixes {
		f.rename(t, f.path(f.cleanedBase, s), f.path(f.cleanedBase, s)+tempSuffix)
	}
}

func TestCleanerCrashAtEachSwapStep(t *testing.T) {
	scenarios := []struct {
		name string
		// crash rewinds/advances the files; it returns whether the swap should have won.
		crash func(t *testing.T, f *crashFixture) (swapped bool)
		// leftover is a temporary file 0.10.2's startup leaves behind in this state.
		leftover string
	}{
		{"cleaned files written, swap not started", func(t *testing.T, f *crashFixture) bool {
			f.cleanedTo(t, CleanedFileSuffix, segmentSuffixes...)
			f.restoreOld(t, f.oldBases)
			return false
		}, ""},
		{"only the .log renamed to .swap", func(t *testing.T, f *crashFixture) bool {
			f.cleanedTo(t, SwapFileSuffix, LogFileSuffix)
			f.cleanedTo(t, CleanedFileSuffix, IndexFileSuffix, TimeIndexFileSuffix)
			f.restoreOld(t, f.oldBases)
			return true
		}, ""},
		{"all renamed to .swap, old segments untouched", func(t *testing.T, f *crashFixture) bool {
			f.cleanedTo(t, SwapFileSuffix, segmentSuffixes...)
			f.restoreOld(t, f.oldBases)
			return true
		}, ""},
		{"swap present, old segments partly renamed to .deleted", func(t *testing.T, f *crashFixture) bool {
			f.cleanedTo(t, SwapFileSuffix, segmentSuffixes...)
			f.restoreOld(t, f.oldBases[len(f.oldBases)/2:])
			return true
		}, ""},
		{"swap present, all old segments .deleted", func(t *testing.T, f *crashFixture) bool {
			f.cleanedTo(t, SwapFileSuffix, segmentSuffixes...)
			return true
		}, ""},
		{"swap present, .deleted files partly deleted", func(t *testing.T, f *crashFixture) bool {
			f.cleanedTo(t, SwapFileSuffix, segmentSuffixes...)
			for _, b := range f.oldBases[:len(f.oldBases)/2] {
				for _, s := range segmentSuffixes {
					if err := os.Remove(f.path(b, s+DeletedFileSuffix)); err != nil {
						t.Fatal(err)
					}
				}
			}
			return true
		}, ""},
		{"swap suffix dropped from the .log only", func(t *testing.T, f *crashFixture) bool {
			f.cleanedTo(t, SwapFileSuffix, IndexFileSuffix, TimeIndexFileSuffix)
			return true
		}, FilenamePrefixFromOffset(0) + TimeIndexFileSuffix + SwapFileSuffix},
		{"swap complete, .deleted files not yet deleted", func(t *testing.T, f *crashFixture) bool {
			return true
		}, ""},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			f := newCrashFixture(t)
			swapped := sc.crash(t, f)
			l := f.e.makeLog(f.config)
			f.e.advance(time.Duration(f.config.FileDeleteDelayMs+1) * time.Millisecond)

			entries, err := os.ReadDir(f.e.dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, de := range entries {
				n := de.Name()
				if (strings.HasSuffix(n, DeletedFileSuffix) || strings.HasSuffix(n, CleanedFileSuffix) ||
					strings.HasSuffix(n, SwapFileSuffix)) && n != sc.leftover {
					t.Errorf("unexpected temporary file %s after recovery", n)
				}
			}
			want := f.allKeys
			if swapped {
				want = f.cleanedKeys
			}
			if got := keysInLog(t, l); !slices.Equal(got, want) {
				t.Fatalf("keys after recovery\n got %v\nwant %v", got, want)
			}
			got := latestValues(t, l)
			for k, v := range f.latest {
				if got[k] != v {
					t.Fatalf("key %d reads %q, latest was %q", k, got[k], v)
				}
			}
			// The recovered log takes appends at the right offset.
			leo := l.LogEndOffset()
			info := mustAppend(t, l, intRecord(t, 0, 999), true)
			if info.FirstOffset != leo {
				t.Fatalf("append after recovery at %d, LEO was %d", info.FirstOffset, leo)
			}
		})
	}
}

// TestCleanerRecoveryAfterCrash follows Kafka's testRecoveryAfterCrash: one log, cleaned
// repeatedly, reopened after each simulated crash.
func TestCleanerRecoveryAfterCrash(t *testing.T) {
	e := newCleanerEnv(t)
	config := e.config(map[string]string{SegmentBytesProp: "300", IndexIntervalBytesProp: "1", FileDeleteDelayMsProp: "10"})
	cleaner := e.makeCleaner(math.MaxInt32, nil, 0)
	open := func() *Log {
		l, err := NewLog(e.dir, config, 0, e.sched, e.time, nil)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	recoverAndCheck := func(old *Log, expectedKeys []int) *Log {
		t.Helper()
		if err := old.Close(); err != nil {
			t.Fatal(err)
		}
		e.sched = utils.NewMockScheduler(e.time)
		l := open()
		e.advance(time.Duration(config.FileDeleteDelayMs+1) * time.Millisecond)
		entries, _ := os.ReadDir(e.dir)
		for _, de := range entries {
			n := de.Name()
			if strings.HasSuffix(n, DeletedFileSuffix) || strings.HasSuffix(n, CleanedFileSuffix) || strings.HasSuffix(n, SwapFileSuffix) {
				t.Fatalf("unexpected %s after recovery", n)
			}
		}
		if got := keysInLog(t, l); !slices.Equal(got, expectedKeys) {
			t.Fatalf("keys %v want %v", got, expectedKeys)
		}
		return l
	}
	restoreDeleted := func() {
		entries, _ := os.ReadDir(e.dir)
		for _, de := range entries {
			if n := de.Name(); strings.HasSuffix(n, DeletedFileSuffix) {
				if err := os.Rename(filepath.Join(e.dir, n), filepath.Join(e.dir, strings.TrimSuffix(n, DeletedFileSuffix))); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	l := open()
	messageCount := 0
	for l.NumberOfSegments() < 10 {
		leo := int(l.LogEndOffset())
		mustAppend(t, l, intRecord(t, leo, leo), true)
		messageCount++
	}
	allKeys := keysInLog(t, l)
	m := newFakeOffsetMap(math.MaxInt32)
	for k := 1; k < messageCount; k += 2 {
		_ = m.Put(keyBytes(k), math.MaxInt64)
	}
	clean := func() []int {
		t.Helper()
		if err := cleaner.cleanSegments(l, l.LogSegments()[:9], m, 0, newCleanerStats(e.time)); err != nil {
			t.Fatal(err)
		}
		return keysInLog(t, l)
	}
	clean()
	// 1) crash after the .cleaned files were written: the cleaning is undone
	if err := l.LogSegments()[0].ChangeFileSuffixes("", CleanedFileSuffix); err != nil {
		t.Fatal(err)
	}
	restoreDeleted()
	l = recoverAndCheck(l, allKeys)

	// 2) crash after .cleaned -> .swap, before the old segments were renamed: the swap is resumed
	cleanedKeys := clean()
	if err := l.LogSegments()[0].ChangeFileSuffixes("", SwapFileSuffix); err != nil {
		t.Fatal(err)
	}
	restoreDeleted()
	l = recoverAndCheck(l, cleanedKeys)

	refill := func() {
		for l.NumberOfSegments() < 10 {
			leo := int(l.LogEndOffset())
			mustAppend(t, l, intRecord(t, leo, leo), true)
			messageCount++
		}
		for k := 1; k < messageCount; k += 2 {
			_ = m.Put(keyBytes(k), math.MaxInt64)
		}
	}
	// 3) crash after the old segments became .deleted, before the .swap suffix was dropped
	refill()
	cleanedKeys = clean()
	if err := l.LogSegments()[0].ChangeFileSuffixes("", SwapFileSuffix); err != nil {
		t.Fatal(err)
	}
	l = recoverAndCheck(l, cleanedKeys)

	// 4) crash after the swap, before the asynchronous deletion of the .deleted files
	refill()
	cleanedKeys = clean()
	l = recoverAndCheck(l, cleanedKeys)
	_ = l.Close()
}
