package log

// Crash safety of recovery (zkafka acceptance; Kafka's LogTest.testCorruptLog and
// LogSegmentTest.testRecoveryWithCorruptMessage in a seeded, randomised form): a segment cut at a
// random byte, or cut and followed by garbage, must come back as exactly its valid prefix, with
// rebuilt indexes, and every later segment dropped.

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/utils"
)

type shallowInfo struct {
	base, position, size int64
	firstOffset          int64
	lastOffset           int64
	values               []string
	timestamp            int64
}

func TestCrashSafetyRandomCuts(t *testing.T) {
	const seed = 20170220
	rng := rand.New(rand.NewPCG(seed, seed))
	src := logDir(t)
	tm := common.NewMockTime(1_500_000_000_000)
	sched := utils.NewMockScheduler(tm)
	p := props(SegmentBytesProp, "8192", IndexIntervalBytesProp, "256", SegmentIndexBytesProp, "4096")
	cfg := mustConfig(t, p)
	l, err := NewLog(src, cfg, 0, sched, tm, nil)
	must(t, err)
	for i := 0; i < 400; i++ {
		ts := tm.Milliseconds() + int64(i)
		v := strings.Repeat(strconv.Itoa(i%10), 1+rng.IntN(300))
		var ms *record.MemoryRecords
		if i%7 == 3 {
			ms = msgSetCodec(t, record.MagicValueV1, record.GZIP, 0, ts, v, v+"b", v+"c")
		} else {
			ms = msgSet(t, 0, ts, v)
		}
		if _, err := l.Append(ms, true); err != nil {
			t.Fatal(err)
		}
	}
	// Describe every shallow entry of every segment.
	var entries []shallowInfo
	var bases []int64
	for _, s := range l.LogSegments() {
		bases = append(bases, s.BaseOffset())
		for fe, err := range s.Log().ShallowEntries() {
			must(t, err)
			e, err := fe.LogEntry()
			must(t, err)
			si := shallowInfo{base: s.BaseOffset(), position: int64(fe.Position), size: int64(fe.SizeInBytes()),
				lastOffset: e.Offset, timestamp: e.Record.Timestamp()}
			si.firstOffset = -1
			for de, err := range e.DeepEntries() {
				must(t, err)
				if si.firstOffset < 0 {
					si.firstOffset = de.Offset
				}
				si.values = append(si.values, string(de.Record.Value()))
			}
			entries = append(entries, si)
		}
	}
	must(t, l.Close())
	if len(bases) < 5 {
		t.Fatalf("want several segments, got %d", len(bases))
	}
	files := map[string][]byte{}
	for _, n := range listDir(t, src) {
		b, err := os.ReadFile(filepath.Join(src, n))
		must(t, err)
		files[n] = b
	}

	iterations := 50
	for iter := 0; iter < iterations; iter++ {
		// Cut one of the segments (often the last, as after a real crash) at a random byte.
		si := len(bases) - 1 - rng.IntN(min(3, len(bases)))
		base := bases[si]
		logName := FilenamePrefixFromOffset(base) + LogFileSuffix
		cut := rng.IntN(len(files[logName]))
		garbage := iter%2 == 1
		dir := filepath.Join(t.TempDir(), "crash-0")
		must(t, os.MkdirAll(dir, 0o755))
		for n, b := range files {
			if n == logName {
				b = append([]byte(nil), b[:cut]...)
				if garbage {
					g := make([]byte, 1+rng.IntN(200))
					for i := range g {
						g[i] = byte(rng.UintN(256))
					}
					b = append(b, g...)
				}
			}
			must(t, os.WriteFile(filepath.Join(dir, n), b, 0o644))
		}
		rl, err := NewLog(dir, cfg, 0, utils.NewMockScheduler(tm), tm, nil)
		must(t, err)

		// Expected: every entry of earlier segments and the entries of the cut segment that end at
		// or before the cut.
		var want []shallowInfo
		for _, e := range entries {
			if e.base < base || (e.base == base && e.position+e.size <= int64(cut)) {
				want = append(want, e)
			}
		}
		wantLEO := base
		if len(want) > 0 && want[len(want)-1].base == base {
			wantLEO = want[len(want)-1].lastOffset + 1
		}
		if rl.LogEndOffset() != wantLEO {
			t.Fatalf("iteration %d (segment %d cut at %d, garbage %v): LEO %d, want %d", iter, base, cut, garbage, rl.LogEndOffset(), wantLEO)
		}
		if rl.NumberOfSegments() != si+1 {
			t.Fatalf("iteration %d: %d segments, want %d (later segments dropped)", iter, rl.NumberOfSegments(), si+1)
		}
		// Every message before the cut reads back, in order, with its value.
		var got []string
		for off := rl.LogStartOffset(); off < rl.LogEndOffset(); {
			fd, err := rl.Read(off, 1<<20, nil, false)
			must(t, err)
			es := deepEntries(t, fd.Records)
			if len(es) == 0 {
				t.Fatalf("iteration %d: nothing read at %d", iter, off)
			}
			for _, e := range es {
				if e.offset >= off {
					got = append(got, e.value)
				}
			}
			off = es[len(es)-1].offset + 1
		}
		var wantVals []string
		for _, e := range want {
			wantVals = append(wantVals, e.values...)
		}
		if len(got) != len(wantVals) {
			t.Fatalf("iteration %d: read %d messages, want %d", iter, len(got), len(wantVals))
		}
		for i := range got {
			if got[i] != wantVals[i] {
				t.Fatalf("iteration %d: message %d differs", iter, i)
			}
		}
		// The rebuilt offset index of the cut segment points at real entry starts with the right
		// offsets, and the time index finds every surviving timestamp.
		seg := rl.ActiveSegment()
		starts := map[int32]int64{}
		for _, e := range want {
			if e.base == base {
				starts[int32(e.position)] = e.firstOffset
			}
		}
		for n := 0; n < seg.Index().Entries(); n++ {
			op, _ := seg.Index().Entry(n)
			if off, ok := starts[op.Position]; !ok || off != op.Offset {
				t.Fatalf("iteration %d: rebuilt index entry %v does not match an entry start", iter, op)
			}
		}
		for _, e := range want {
			if e.base != base {
				continue
			}
			to, ok, err := rl.FetchOffsetsByTimestamp(e.timestamp)
			if err != nil || !ok || to.Offset != e.firstOffset {
				t.Fatalf("iteration %d: timestamp %d -> %v %v %v, want offset %d", iter, e.timestamp, to, ok, err, e.firstOffset)
			}
		}
		idxFile := seg.Index().File()
		entriesN := seg.Index().Entries()
		tidxFile := seg.TimeIndex().File()
		must(t, rl.Close())
		// Closed indexes hold exactly their entries.
		if fileSize(t, idxFile) != int64(entriesN*OffsetIndexEntrySize) || fileSize(t, tidxFile)%TimeIndexEntrySize != 0 {
			t.Fatalf("iteration %d: index files not trimmed", iter)
		}
	}
}
