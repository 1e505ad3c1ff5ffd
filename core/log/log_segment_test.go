package log

// Ports of Kafka 0.10.2's LogSegmentTest (scenarios rewritten for Go):
//
//	| Kafka test                                         | Go test                                        |
//	|----------------------------------------------------|------------------------------------------------|
//	| testReadOnEmptySegment                             | TestLogSegmentReadOnEmptySegment               |
//	| testReadBeforeFirstOffset                          | TestLogSegmentReadBeforeFirstOffset            |
//	| testMaxOffset                                      | TestLogSegmentMaxOffset                        |
//	| testReadAfterLast                                  | TestLogSegmentReadAfterLast                    |
//	| testReadFromGap                                    | TestLogSegmentReadFromGap                      |
//	| testTruncate                                       | TestLogSegmentTruncate                         |
//	| testReloadLargestTimestampAfterTruncation          | TestLogSegmentReloadLargestTimestampAfterTruncation |
//	| testTruncateFull                                   | TestLogSegmentTruncateFull                     |
//	| testFindOffsetByTimestamp                          | TestLogSegmentFindOffsetByTimestamp            |
//	| testNextOffsetCalculation                          | TestLogSegmentNextOffsetCalculation            |
//	| testChangeFileSuffixes                             | TestLogSegmentChangeFileSuffixes               |
//	| testRecoveryFixesCorruptIndex                      | TestLogSegmentRecoveryFixesCorruptIndex        |
//	| testRecoveryFixesCorruptTimeIndex                  | TestLogSegmentRecoveryFixesCorruptTimeIndex    |
//	| testRecoveryWithCorruptMessage                     | TestLogSegmentRecoveryWithCorruptMessage       |
//	| testCreateWithInitFileSizeAppendMessage            | TestLogSegmentCreateWithInitFileSizeAppendMessage |
//	| testCreateWithInitFileSizeClearShutdown            | TestLogSegmentCreateWithInitFileSizeClearShutdown |
//	| (zkafka) index interval rule, minOneMessage        | TestLogSegmentIndexIntervalRule, TestLogSegmentReadMinOneMessage |
//	| (zkafka) index entries inside one append           | TestLogSegmentIndexWithinOneAppend(Compressed) |

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
)

func segT(t *testing.T, offset int64) (*LogSegment, *common.MockTime) {
	tm := common.NewMockTime(1_000_000)
	seg := newTestSegment(t, t.TempDir(), offset, tm)
	t.Cleanup(func() { _ = seg.Close() })
	return seg, tm
}

func appendSet(t *testing.T, seg *LogSegment, ms *record.MemoryRecords, first, last, maxTs int64) {
	t.Helper()
	if err := seg.Append(first, last, maxTs, last, ms); err != nil {
		t.Fatal(err)
	}
}

func readAll(t *testing.T, seg *LogSegment, start int64, maxOffset *int64, maxSize int) []entryView {
	t.Helper()
	fd, err := seg.Read(start, maxOffset, maxSize, seg.Size(), false)
	if err != nil {
		t.Fatal(err)
	}
	if fd == nil {
		return nil
	}
	return deepEntries(t, fd.Records)
}

func offsetsOf(es []entryView) []int64 {
	var o []int64
	for _, e := range es {
		o = append(o, e.offset)
	}
	return o
}

func eqOffsets(t *testing.T, got []entryView, want ...int64) {
	t.Helper()
	g := offsetsOf(got)
	if len(g) != len(want) {
		t.Fatalf("offsets %v, want %v", g, want)
	}
	for i := range g {
		if g[i] != want[i] {
			t.Fatalf("offsets %v, want %v", g, want)
		}
	}
}

func TestLogSegmentReadOnEmptySegment(t *testing.T) {
	seg, _ := segT(t, 40)
	fd, err := seg.Read(40, nil, 300, seg.Size(), false)
	if err != nil || fd != nil {
		t.Fatalf("read on empty segment = %v, %v; want nil", fd, err)
	}
}

func TestLogSegmentReadBeforeFirstOffset(t *testing.T) {
	seg, _ := segT(t, 40)
	appendSet(t, seg, msgSet(t, 50, 0, "hello", "there", "little", "bee"), 50, 53, 0)
	got := readAll(t, seg, 41, nil, 300)
	eqOffsets(t, got, 50, 51, 52, 53)
	if got[3].value != "bee" {
		t.Fatalf("value %q", got[3].value)
	}
}

func TestLogSegmentMaxOffset(t *testing.T) {
	seg, _ := segT(t, 40)
	appendSet(t, seg, msgSet(t, 50, 0, "hello", "there", "beautiful"), 50, 52, 0)
	for _, c := range []struct {
		max  int64
		want []int64
	}{{51, []int64{50}}, {52, []int64{50, 51}}, {53, []int64{50, 51, 52}}, {49, nil}} {
		m := c.max
		eqOffsets(t, readAll(t, seg, 50, &m, 300), c.want...)
	}
}

func TestLogSegmentReadAfterLast(t *testing.T) {
	seg, _ := segT(t, 40)
	appendSet(t, seg, msgSet(t, 50, 0, "hello", "there"), 50, 51, 0)
	fd, err := seg.Read(52, nil, 200, seg.Size(), false)
	if err != nil || fd != nil {
		t.Fatalf("read after last = %v, %v", fd, err)
	}
}

func TestLogSegmentReadFromGap(t *testing.T) {
	seg, _ := segT(t, 40)
	appendSet(t, seg, msgSet(t, 50, 0, "hello", "there"), 50, 51, 0)
	appendSet(t, seg, msgSet(t, 60, 0, "alpha", "beta"), 60, 61, 0)
	eqOffsets(t, readAll(t, seg, 55, nil, 200), 60, 61)
}

func TestLogSegmentTruncate(t *testing.T) {
	seg, _ := segT(t, 40)
	offset := int64(40)
	for range 30 {
		appendSet(t, seg, msgSet(t, offset, 0, "hello"), offset, offset, 0)
		appendSet(t, seg, msgSet(t, offset+1, 0, "hello"), offset+1, offset+1, 0)
		// Cut the second message: the segment ends at it, and reading it finds nothing.
		if _, err := seg.TruncateTo(offset + 1); err != nil {
			t.Fatal(err)
		}
		if fd, err := seg.Read(offset+1, nil, 1024, seg.Size(), false); err != nil || fd != nil {
			t.Fatalf("read of truncated offset %d: %v %v", offset+1, fd, err)
		}
		eqOffsets(t, readAll(t, seg, offset, nil, 1024), offset)
		if n, err := seg.NextOffset(); err != nil || n != offset+1 {
			t.Fatalf("next offset %d, %v", n, err)
		}
		offset++
	}
}

func TestLogSegmentReloadLargestTimestampAfterTruncation(t *testing.T) {
	seg, _ := segT(t, 40)
	// A segment with index.interval.bytes 10: each append adds index entries.
	for i := int64(0); i < 10; i++ {
		appendSet(t, seg, msgSet(t, 40+i, 100+i, "hello"), 40+i, 40+i, 100+i)
	}
	if seg.LargestTimestamp() != 109 {
		t.Fatalf("largest ts %d", seg.LargestTimestamp())
	}
	if _, err := seg.TruncateTo(45); err != nil {
		t.Fatal(err)
	}
	if seg.LargestTimestamp() != 104 {
		t.Fatalf("largest ts after truncation %d, want 104", seg.LargestTimestamp())
	}
}

func TestLogSegmentTruncateFull(t *testing.T) {
	seg, tm := segT(t, 40)
	appendSet(t, seg, msgSet(t, 40, 0, "hello", "there"), 40, 41, 0)
	tm.Sleep(500_000_000) // 500 ms
	if _, err := seg.TruncateTo(0); err != nil {
		t.Fatal(err)
	}
	if seg.Size() != 0 {
		t.Fatalf("size %d", seg.Size())
	}
	if seg.TimeWaitedForRoll(tm.Milliseconds(), -1) != 0 {
		t.Fatal("creation time should reset on full truncation")
	}
	if fd, _ := seg.Read(0, nil, 1024, seg.Size(), false); fd != nil {
		t.Fatal("segment should be empty")
	}
	appendSet(t, seg, msgSet(t, 40, 0, "hello", "there"), 40, 41, 0)
}

func TestLogSegmentFindOffsetByTimestamp(t *testing.T) {
	seg, _ := segT(t, 40)
	// 10 messages: offset 40+i has timestamp i*10 (appended one per set).
	for i := int64(0); i < 10; i++ {
		appendSet(t, seg, msgSet(t, 40+i, i*10, "m"+strconv.Itoa(int(i))), 40+i, 40+i, i*10)
	}
	for _, c := range []struct {
		ts     int64
		wantTs int64
		wantOf int64
		ok     bool
	}{{-1, 0, 40, true}, {0, 0, 40, true}, {15, 20, 42, true}, {90, 90, 49, true}, {91, 0, 0, false}} {
		got, ok, err := seg.FindOffsetByTimestamp(c.ts)
		if err != nil || ok != c.ok || (ok && got != (TimestampOffset{c.wantTs, c.wantOf})) {
			t.Fatalf("findOffsetByTimestamp(%d) = %v %v %v", c.ts, got, ok, err)
		}
	}
}

func TestLogSegmentNextOffsetCalculation(t *testing.T) {
	seg, _ := segT(t, 40)
	if n, _ := seg.NextOffset(); n != 40 {
		t.Fatalf("empty next offset %d", n)
	}
	appendSet(t, seg, msgSet(t, 50, 0, "hello", "there", "you"), 50, 52, 0)
	if n, _ := seg.NextOffset(); n != 53 {
		t.Fatalf("next offset %d", n)
	}
}

func TestLogSegmentChangeFileSuffixes(t *testing.T) {
	seg, _ := segT(t, 40)
	logFile, idxFile, tidxFile := seg.Log().File(), seg.Index().File(), seg.TimeIndex().File()
	if err := seg.ChangeFileSuffixes("", ".deleted"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{logFile, idxFile, tidxFile} {
		if _, err := os.Stat(p + ".deleted"); err != nil {
			t.Fatalf("%s.deleted missing: %v", p, err)
		}
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s still there", p)
		}
	}
	if seg.Log().File() != logFile+".deleted" || seg.Index().File() != idxFile+".deleted" {
		t.Fatal("recorded paths not updated")
	}
}

func TestLogSegmentRecoveryFixesCorruptIndex(t *testing.T) {
	seg, _ := segT(t, 0)
	for i := int64(0); i < 100; i++ {
		appendSet(t, seg, msgSet(t, i, i, strconv.Itoa(int(i))), i, i, i)
	}
	// Scribble over the index with garbage, then recover.
	idxPath := seg.Index().File()
	garbage := make([]byte, seg.Index().SizeInBytes())
	for i := range garbage {
		garbage[i] = byte(i*7 + 3)
	}
	f, err := os.OpenFile(idxPath, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(garbage, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if n, err := seg.Recover(64 * 1024); err != nil || n != 0 {
		t.Fatalf("recover = %d, %v", n, err)
	}
	for i := int64(0); i < 100; i++ {
		got := readAll(t, seg, i, nil, 1024)
		if len(got) == 0 || got[0].offset != i {
			t.Fatalf("read %d after recovery: %v", i, offsetsOf(got))
		}
	}
}

func TestLogSegmentRecoveryFixesCorruptTimeIndex(t *testing.T) {
	seg, _ := segT(t, 0)
	for i := int64(0); i < 100; i++ {
		appendSet(t, seg, msgSet(t, i, i*10, strconv.Itoa(int(i))), i, i, i*10)
	}
	tidx := seg.TimeIndex().File()
	garbage := make([]byte, seg.TimeIndex().SizeInBytes())
	for i := range garbage {
		garbage[i] = byte(255 - i)
	}
	f, _ := os.OpenFile(tidx, os.O_RDWR, 0)
	_, _ = f.WriteAt(garbage, 0)
	f.Close()
	if _, err := seg.Recover(64 * 1024); err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 100; i++ {
		got, ok, err := seg.FindOffsetByTimestamp(i * 10)
		if err != nil || !ok || got.Offset != i {
			t.Fatalf("findOffsetByTimestamp(%d) = %v %v %v", i*10, got, ok, err)
		}
	}
}

func TestLogSegmentRecoveryWithCorruptMessage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for iter := 0; iter < 10; iter++ {
		dir := t.TempDir()
		seg := newTestSegment(t, dir, 0, common.NewMockTime(0))
		var positions []int64
		for i := int64(0); i < 100; i++ {
			positions = append(positions, seg.Size())
			appendSet(t, seg, msgSet(t, i, i, strconv.Itoa(int(i))), i, i, i)
		}
		// Garbage from a random entry boundary on: everything before it survives, the rest goes.
		k := 1 + rng.IntN(99)
		pos := positions[k]
		f, _ := os.OpenFile(seg.Log().File(), os.O_RDWR, 0)
		_, _ = f.WriteAt([]byte{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7f, 0xff, 0xff, 0xff, 1, 2, 3}, pos)
		f.Close()
		if _, err := seg.Recover(64 * 1024); err != nil {
			t.Fatal(err)
		}
		if seg.Size() != pos {
			t.Fatalf("iteration %d: size %d, want %d", iter, seg.Size(), pos)
		}
		var want []int64
		for i := int64(0); i < int64(k); i++ {
			want = append(want, i)
		}
		eqOffsets(t, readAll(t, seg, 0, nil, 1<<20), want...)
		_ = seg.Close()
	}
}

func TestLogSegmentCreateWithInitFileSizeAppendMessage(t *testing.T) {
	dir := t.TempDir()
	seg, err := OpenLogSegment(dir, 40, 10, 1000, 0, common.NewMockTime(0), false, 512*1024*1024, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	if seg.Size() != 0 {
		t.Fatalf("logical size of a preallocated segment = %d", seg.Size())
	}
	appendSet(t, seg, msgSet(t, 50, 0, "hello", "there"), 50, 51, 0)
	appendSet(t, seg, msgSet(t, 60, 0, "alpha", "beta"), 60, 61, 0)
	eqOffsets(t, readAll(t, seg, 55, nil, 200), 60, 61)
}

func TestLogSegmentCreateWithInitFileSizeClearShutdown(t *testing.T) {
	dir := t.TempDir()
	tm := common.NewMockTime(0)
	seg, err := OpenLogSegment(dir, 40, 10, 1000, 0, tm, false, 512*1024*1024, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	appendSet(t, seg, msgSet(t, 50, 0, "hello", "there"), 50, 51, 0)
	appendSet(t, seg, msgSet(t, 60, 0, "alpha", "beta"), 60, 61, 0)
	oldSize := seg.Size()
	oldPos, _ := seg.Log().SearchForOffsetWithSize(61, 0)
	if err := seg.Close(); err != nil {
		t.Fatal(err)
	}
	// Close trimmed the preallocated tail: reopening sees exactly the data.
	if fileSize(t, filepath.Join(dir, "00000000000000000040.log")) != oldSize {
		t.Fatalf("file not trimmed on close")
	}
	seg2, err := OpenLogSegment(dir, 40, 10, 1000, 0, tm, true, 512*1024*1024, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer seg2.Close()
	if seg2.Size() != oldSize {
		t.Fatalf("reopened size %d, want %d", seg2.Size(), oldSize)
	}
	if p, _ := seg2.Log().SearchForOffsetWithSize(61, 0); p == nil || p.Position != oldPos.Position {
		t.Fatalf("position of 61 = %v, want %v", p, oldPos)
	}
}

func TestLogSegmentIndexIntervalRule(t *testing.T) {
	tm := common.NewMockTime(0)
	seg, err := OpenLogSegment(t.TempDir(), 0, 100, 1000, 0, tm, false, 0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	// Each single-message set is 12 + 22 + 1 = 35 bytes; an entry is added before a set once more
	// than 100 bytes were written since the last entry, i.e. before the 4th set, the 7th, ...
	var positions []int64
	for i := int64(0); i < 10; i++ {
		positions = append(positions, seg.Size())
		appendSet(t, seg, msgSet(t, i, i, "x"), i, i, i)
	}
	want := []OffsetPosition{{3, int32(positions[3])}, {6, int32(positions[6])}, {9, int32(positions[9])}}
	if seg.Index().Entries() != len(want) {
		t.Fatalf("%d index entries, want %d", seg.Index().Entries(), len(want))
	}
	for i, w := range want {
		if e, _ := seg.Index().Entry(i); e != w {
			t.Fatalf("entry %d = %v, want %v", i, e, w)
		}
	}
	// Recovery rebuilds exactly the same entries.
	if _, err := seg.Recover(1 << 20); err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		if e, _ := seg.Index().Entry(i); e != w {
			t.Fatalf("rebuilt entry %d = %v, want %v", i, e, w)
		}
	}
}

func TestLogSegmentReadMinOneMessage(t *testing.T) {
	seg, _ := segT(t, 0)
	appendSet(t, seg, msgSet(t, 0, 0, "a fairly long message value"), 0, 0, 0)
	fd, err := seg.Read(0, nil, 10, seg.Size(), false)
	if err != nil || fd.Records.SizeInBytes() != 10 || !fd.FirstEntryIncomplete {
		t.Fatalf("without minOneMessage: %v %v", fd, err)
	}
	fd, err = seg.Read(0, nil, 10, seg.Size(), true)
	if err != nil || int64(fd.Records.SizeInBytes()) != seg.Size() || fd.FirstEntryIncomplete {
		t.Fatalf("with minOneMessage: size %d incomplete %v err %v", fd.Records.SizeInBytes(), fd.FirstEntryIncomplete, err)
	}
	if _, ok := fd.Records.(*record.FileRecords); !ok {
		t.Fatalf("segment reads must return file slices, got %T", fd.Records)
	}
}

// One append of many messages gets the index entries that recovery would build for it (every
// index.interval.bytes, not only at the start of the append), and every offset reads back from
// its own entry.
func TestLogSegmentIndexWithinOneAppend(t *testing.T) {
	tm := common.NewMockTime(0)
	seg, err := OpenLogSegment(t.TempDir(), 0, 100, 1000, 0, tm, false, 0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	values := make([]string, 40)
	for i := range values {
		values[i] = "x"
	}
	appendSet(t, seg, msgSet(t, 0, 0, values...), 0, 39, 0)
	built := indexEntries(t, seg)
	// 35-byte entries, interval 100: an entry before offsets 3, 6, 9, ... as for single appends.
	if len(built) != 13 || built[0] != (OffsetPosition{3, 105}) || built[12] != (OffsetPosition{39, 39 * 35}) {
		t.Fatalf("index after one append: %v", built)
	}
	if _, err := seg.Recover(1 << 20); err != nil {
		t.Fatal(err)
	}
	if rebuilt := indexEntries(t, seg); fmt.Sprint(rebuilt) != fmt.Sprint(built) {
		t.Fatalf("recovery built %v, the append %v", rebuilt, built)
	}
	for o := int64(0); o < 40; o++ {
		if got := offsetsOf(readAll(t, seg, o, nil, 35)); len(got) != 1 || got[0] != o {
			t.Fatalf("read at %d: %v", o, got)
		}
	}
}

// Compressed wrappers appended together: an index entry inside the append names the offset after
// the previous wrapper's last one, so a lookup of any inner offset still starts at or before the
// wrapper holding it.
func TestLogSegmentIndexWithinOneAppendCompressed(t *testing.T) {
	tm := common.NewMockTime(0)
	seg, err := OpenLogSegment(t.TempDir(), 0, 50, 1000, 0, tm, false, 0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	var buf []byte
	for w := int64(0); w < 6; w++ {
		buf = append(buf, msgSetCodec(t, record.MagicValueV1, record.GZIP, w*3, 0, "a", "b", "c").Bytes()...)
	}
	appendSet(t, seg, record.NewMemoryRecords(buf), 0, 17, 0)
	entries := indexEntries(t, seg)
	if len(entries) == 0 {
		t.Fatal("no index entry inside a 6-wrapper append with a 50-byte interval")
	}
	for _, e := range entries {
		if e.Offset%3 != 0 {
			t.Fatalf("entry %v does not name the first offset of a wrapper", e)
		}
	}
	for o := int64(0); o < 18; o++ {
		fd, err := seg.Read(o, nil, 1, seg.Size(), true) // the one wrapper holding o
		if err != nil || fd == nil {
			t.Fatalf("read at %d: %v %v", o, fd, err)
		}
		got := offsetsOf(deepEntries(t, fd.Records))
		if len(got) != 3 || got[0] != o-o%3 {
			t.Fatalf("read at %d: %v, want the wrapper from %d", o, got, o-o%3)
		}
	}
}

func indexEntries(t *testing.T, seg *LogSegment) []OffsetPosition {
	t.Helper()
	var out []OffsetPosition
	for i := 0; i < seg.Index().Entries(); i++ {
		e, err := seg.Index().Entry(i)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}
