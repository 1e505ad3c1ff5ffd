package log

// Ports of Kafka 0.10.2's OffsetIndexTest and TimeIndexTest (the scenarios, rewritten):
//
//	| Kafka test                         | Go test                                   |
//	|------------------------------------|-------------------------------------------|
//	| OffsetIndexTest.randomLookupTest   | TestOffsetIndexRandomLookup               |
//	| OffsetIndexTest.lookupExtremeCases | TestOffsetIndexLookupExtremeCases         |
//	| OffsetIndexTest.appendTooMany      | TestOffsetIndexAppendTooMany              |
//	| OffsetIndexTest.appendOutOfOrder   | TestOffsetIndexAppendOutOfOrder           |
//	| OffsetIndexTest.testReopen         | TestOffsetIndexReopen                     |
//	| OffsetIndexTest.truncate           | TestOffsetIndexTruncate                   |
//	| TimeIndexTest.testLookUp           | TestTimeIndexLookUp                       |
//	| TimeIndexTest.testTruncate         | TestTimeIndexTruncate                     |
//	| TimeIndexTest.testAppend           | TestTimeIndexAppend                       |
//	| (zkafka) on-disk layout            | TestIndexFileFormatGolden, TestIndexSanityCheck, TestIndexHandBuiltFilesAreRead |

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

func newOffsetIndexT(t *testing.T, base int64, maxSize int) *OffsetIndex {
	t.Helper()
	idx, err := NewOffsetIndex(filepath.Join(t.TempDir(), "test.index"), base, maxSize, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	return idx
}

func TestOffsetIndexRandomLookup(t *testing.T) {
	idx := newOffsetIndexT(t, 45, 30*8)
	rng := rand.New(rand.NewPCG(1, 2))
	// 30 distinct increasing offsets above the base, with increasing positions.
	set := map[int64]bool{}
	for len(set) < 30 {
		set[46+rng.Int64N(10000)] = true
	}
	offsets := make([]int64, 0, 30)
	for o := range set {
		offsets = append(offsets, o)
	}
	sort.Slice(offsets, func(i, j int) bool { return offsets[i] < offsets[j] })
	positions := make([]int32, 30)
	for i := range positions {
		positions[i] = int32(i*100 + rng.IntN(50))
		if err := idx.Append(offsets[i], positions[i]); err != nil {
			t.Fatal(err)
		}
	}
	// Exact hits.
	for i, o := range offsets {
		if got := idx.Lookup(o); got != (OffsetPosition{o, positions[i]}) {
			t.Fatalf("lookup(%d) = %v", o, got)
		}
	}
	// Random targets: the answer is the greatest entry <= target.
	for range 200 {
		target := 45 + rng.Int64N(10100)
		want := OffsetPosition{45, 0}
		for i, o := range offsets {
			if o <= target {
				want = OffsetPosition{o, positions[i]}
			}
		}
		if got := idx.Lookup(target); got != want {
			t.Fatalf("lookup(%d) = %v, want %v", target, got, want)
		}
	}
}

func TestOffsetIndexLookupExtremeCases(t *testing.T) {
	idx := newOffsetIndexT(t, 45, 30*8)
	if got := idx.Lookup(45); got != (OffsetPosition{45, 0}) {
		t.Fatalf("empty index lookup = %v", got)
	}
	for i := int64(0); i < int64(idx.MaxEntries()); i++ {
		if err := idx.Append(46+i, int32(i)); err != nil {
			t.Fatal(err)
		}
	}
	if got := idx.Lookup(45); got != (OffsetPosition{45, 0}) {
		t.Fatalf("below first entry = %v", got)
	}
	last := 46 + int64(idx.MaxEntries()) - 1
	if got := idx.Lookup(last * 2); got != (OffsetPosition{last, int32(idx.MaxEntries() - 1)}) {
		t.Fatalf("above last entry = %v", got)
	}
}

func TestOffsetIndexAppendTooMany(t *testing.T) {
	idx := newOffsetIndexT(t, 45, 30*8)
	for i := 0; i < idx.MaxEntries(); i++ {
		if err := idx.Append(46+int64(i), int32(i)); err != nil {
			t.Fatal(err)
		}
	}
	if !idx.IsFull() {
		t.Fatal("index should be full")
	}
	if err := idx.Append(1000, 1000); !errors.Is(err, ErrIndexFull) {
		t.Fatalf("append to full index: %v", err)
	}
}

func TestOffsetIndexAppendOutOfOrder(t *testing.T) {
	idx := newOffsetIndexT(t, 45, 30*8)
	if err := idx.Append(51, 0); err != nil {
		t.Fatal(err)
	}
	for _, o := range []int64{51, 50} {
		if err := idx.Append(o, 1); !errors.Is(err, ErrInvalidOffset) {
			t.Fatalf("append(%d) after 51: %v", o, err)
		}
	}
}

func TestOffsetIndexReopen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "00000000000000000045.index")
	idx, err := NewOffsetIndex(path, 45, 30*8, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := OffsetPosition{51, 0}
	sec := OffsetPosition{52, 1}
	for _, e := range []OffsetPosition{first, sec} {
		if err := idx.Append(e.Offset, e.Position); err != nil {
			t.Fatal(err)
		}
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	idx2, err := NewOffsetIndex(path, 45, 30*8, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer idx2.Close()
	if idx2.Entries() != 2 || idx2.LastOffset() != 52 {
		t.Fatalf("reopened: entries %d last %d", idx2.Entries(), idx2.LastOffset())
	}
	if got := idx2.Lookup(first.Offset); got != first {
		t.Fatalf("lookup first = %v", got)
	}
	if got := idx2.Lookup(sec.Offset); got != sec {
		t.Fatalf("lookup second = %v", got)
	}
	// A reopened (trimmed) index has no room until it is resized.
	if !idx2.IsFull() {
		t.Fatal("trimmed index should be full")
	}
	if err := idx2.Append(53, 2); !errors.Is(err, ErrIndexFull) {
		t.Fatalf("append to trimmed index: %v", err)
	}
	if err := idx2.Resize(30 * 8); err != nil {
		t.Fatal(err)
	}
	if err := idx2.Append(53, 2); err != nil {
		t.Fatal(err)
	}
}

func TestOffsetIndexTruncate(t *testing.T) {
	idx := newOffsetIndexT(t, 0, 10*8)
	for i := int64(1); i < 10; i++ {
		if err := idx.Append(i, int32(i)); err != nil {
			t.Fatal(err)
		}
	}
	// Truncation to a missing offset keeps the entries below it.
	idx.TruncateTo(12)
	if got := idx.Lookup(10); got != (OffsetPosition{9, 9}) {
		t.Fatalf("after truncateTo(12): %v", got)
	}
	idx.TruncateTo(10)
	if got := idx.Lookup(10); got != (OffsetPosition{9, 9}) {
		t.Fatalf("after truncateTo(10): %v", got)
	}
	idx.TruncateTo(9)
	if got := idx.Lookup(10); got != (OffsetPosition{8, 8}) {
		t.Fatalf("after truncateTo(9): %v", got)
	}
	idx.TruncateTo(5)
	if got := idx.Lookup(10); got != (OffsetPosition{4, 4}) {
		t.Fatalf("after truncateTo(5): %v", got)
	}
	idx.TruncateTo(0)
	if idx.Entries() != 0 || idx.LastOffset() != 0 {
		t.Fatalf("after truncateTo(0): entries %d", idx.Entries())
	}
	if err := idx.Append(0, 0); err != nil { // empty again: any offset accepted
		t.Fatal(err)
	}
}

func newTimeIndexT(t *testing.T) *TimeIndex {
	t.Helper()
	idx, err := NewTimeIndex(filepath.Join(t.TempDir(), "test.timeindex"), 45, 30*12, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	return idx
}

func appendTimeEntries(t *testing.T, idx *TimeIndex, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		if err := idx.MaybeAppend(int64(i*10), int64(i*10)+45, false); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTimeIndexLookUp(t *testing.T) {
	idx := newTimeIndexT(t)
	if got := idx.Lookup(100); got != (TimestampOffset{-1, 45}) {
		t.Fatalf("empty lookup = %v", got)
	}
	appendTimeEntries(t, idx, 29)
	for _, c := range []struct {
		ts   int64
		want TimestampOffset
	}{{9, TimestampOffset{-1, 45}}, {25, TimestampOffset{20, 65}}, {30, TimestampOffset{30, 75}}, {1000, TimestampOffset{290, 335}}} {
		if got := idx.Lookup(c.ts); got != c.want {
			t.Fatalf("lookup(%d) = %v, want %v", c.ts, got, c.want)
		}
	}
}

func TestTimeIndexTruncate(t *testing.T) {
	idx := newTimeIndexT(t)
	appendTimeEntries(t, idx, 29)
	idx.Truncate()
	if idx.Entries() != 0 {
		t.Fatal("truncate left entries")
	}
	appendTimeEntries(t, idx, 29)
	idx.TruncateTo(10 + 45)
	if idx.Entries() != 0 {
		t.Fatalf("truncateTo(55) left %d entries", idx.Entries())
	}
	appendTimeEntries(t, idx, 29)
	idx.TruncateTo(100) // entries at offsets 55..95 stay (5), 105 goes
	if idx.Entries() != 5 || idx.LastEntry() != (TimestampOffset{50, 95}) {
		t.Fatalf("truncateTo(100): %d entries, last %v", idx.Entries(), idx.LastEntry())
	}
}

func TestTimeIndexAppend(t *testing.T) {
	idx := newTimeIndexT(t)
	appendTimeEntries(t, idx, 29)
	if !idx.IsFull() {
		t.Fatal("29 of 30 entries should count as full")
	}
	if err := idx.MaybeAppend(10000, 1000, false); !errors.Is(err, ErrIndexFull) {
		t.Fatalf("full append: %v", err)
	}
	if err := idx.MaybeAppend(10000, 28*10, true); !errors.Is(err, ErrInvalidOffset) {
		t.Fatalf("offset going back: %v", err)
	}
	if err := idx.MaybeAppend(100, 1000, true); !errors.Is(err, ErrIllegalState) {
		t.Fatalf("timestamp going back: %v", err)
	}
	// Equal timestamp is silently ignored.
	if err := idx.MaybeAppend(290, 1000, true); err != nil || idx.Entries() != 29 {
		t.Fatalf("equal timestamp: %v entries %d", err, idx.Entries())
	}
	if err := idx.MaybeAppend(10000, 1000, true); err != nil {
		t.Fatal(err)
	}
	if idx.LastEntry() != (TimestampOffset{10000, 1000}) {
		t.Fatalf("last = %v", idx.LastEntry())
	}
	// The -1 "no timestamp" of magic-0 data never makes an entry.
	idx2 := newOffsetlessTimeIndex(t)
	if err := idx2.MaybeAppend(-1, 50, false); err != nil || idx2.Entries() != 0 {
		t.Fatalf("NoTimestamp append: %v, %d entries", err, idx2.Entries())
	}
}

func newOffsetlessTimeIndex(t *testing.T) *TimeIndex { return newTimeIndexT(t) }

// TestIndexFileFormatGolden checks the bytes zkafka writes: preallocation to a whole number of
// entries, big-endian relative offsets, and the trim on close.
func TestIndexFileFormatGolden(t *testing.T) {
	dir := t.TempDir()
	ip := filepath.Join(dir, "00000000000000000100.index")
	tp := filepath.Join(dir, "00000000000000000100.timeindex")
	oi, err := NewOffsetIndex(ip, 100, 1003, nil) // rounds down to 1000 = 125 entries
	if err != nil {
		t.Fatal(err)
	}
	ti, err := NewTimeIndex(tp, 100, 1003, nil) // rounds down to 996 = 83 entries
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(ip); st.Size() != 1000 || oi.MaxEntries() != 125 {
		t.Fatalf("index preallocated to %d", st.Size())
	}
	if st, _ := os.Stat(tp); st.Size() != 996 || ti.MaxEntries() != 83 {
		t.Fatalf("time index preallocated to %d", st.Size())
	}
	must(t, oi.Append(101, 4108))
	must(t, oi.Append(300, 70000))
	must(t, ti.MaybeAppend(1487000000000, 101, false))
	// An offset more than MaxInt32 above the base cannot be stored.
	if err := oi.Append(100+1<<31, 80000); !errors.Is(err, ErrInvalidOffset) {
		t.Fatalf("relative offset overflow: %v", err)
	}
	must(t, oi.Close())
	must(t, ti.Close())
	gotI, _ := os.ReadFile(ip)
	wantI := []byte{0, 0, 0, 1, 0, 0, 0x10, 0x0c, 0, 0, 0, 0xc8, 0, 1, 0x11, 0x70}
	if !bytes.Equal(gotI, wantI) {
		t.Fatalf(".index = % x, want % x", gotI, wantI)
	}
	gotT, _ := os.ReadFile(tp)
	wantT := []byte{0, 0, 1, 0x5a, 0x38, 0x1b, 0x56, 0, 0, 0, 0, 1}
	if !bytes.Equal(gotT, wantT) {
		t.Fatalf(".timeindex = % x, want % x", gotT, wantT)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestIndexHandBuiltFilesAreRead(t *testing.T) {
	dir := t.TempDir()
	// Offset index of segment 1000: (1003 -> 4200), (1010 -> 9000), laid out by hand.
	oiBytes := []byte{
		0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x10, 0x68,
		0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x23, 0x28,
	}
	// Time index: (1487000000000 -> 1003), (1487000000500 -> 1010).
	tiBytes := []byte{
		0x00, 0x00, 0x01, 0x5a, 0x38, 0x1b, 0x56, 0x00, 0x00, 0x00, 0x00, 0x03,
		0x00, 0x00, 0x01, 0x5a, 0x38, 0x1b, 0x57, 0xf4, 0x00, 0x00, 0x00, 0x0a,
	}
	ip := filepath.Join(dir, "00000000000000001000.index")
	tp := filepath.Join(dir, "00000000000000001000.timeindex")
	must(t, os.WriteFile(ip, oiBytes, 0o644))
	must(t, os.WriteFile(tp, tiBytes, 0o644))
	oi, err := NewOffsetIndex(ip, 1000, 4096, nil)
	must(t, err)
	defer oi.Close()
	ti, err := NewTimeIndex(tp, 1000, 4096, nil)
	must(t, err)
	defer ti.Close()
	must(t, oi.SanityCheck())
	must(t, ti.SanityCheck())
	if oi.Entries() != 2 || oi.LastOffset() != 1010 {
		t.Fatalf("entries %d last %d", oi.Entries(), oi.LastOffset())
	}
	if got := oi.Lookup(1005); got != (OffsetPosition{1003, 4200}) {
		t.Fatalf("lookup 1005 = %v", got)
	}
	if got := ti.Lookup(1487000000499); got != (TimestampOffset{1487000000000, 1003}) {
		t.Fatalf("time lookup = %v", got)
	}
	if got := ti.LastEntry(); got != (TimestampOffset{1487000000500, 1010}) {
		t.Fatalf("last = %v", got)
	}
	// Writing the same entries with zkafka produces the same bytes after close.
	ip2 := filepath.Join(dir, "x.index")
	tp2 := filepath.Join(dir, "x.timeindex")
	oi2, err := NewOffsetIndex(ip2, 1000, 4096, nil)
	must(t, err)
	ti2, err := NewTimeIndex(tp2, 1000, 4096, nil)
	must(t, err)
	must(t, oi2.Append(1003, 4200))
	must(t, oi2.Append(1010, 9000))
	must(t, ti2.MaybeAppend(1487000000000, 1003, false))
	must(t, ti2.MaybeAppend(1487000000500, 1010, false))
	must(t, oi2.Close())
	must(t, ti2.Close())
	for _, c := range []struct {
		path string
		want []byte
	}{{ip2, oiBytes}, {tp2, tiBytes}} {
		got, err := os.ReadFile(c.path)
		must(t, err)
		if !bytes.Equal(got, c.want) {
			t.Fatalf("%s = % x, want % x", c.path, got, c.want)
		}
	}
}

func TestIndexSanityCheck(t *testing.T) {
	dir := t.TempDir()
	// Last entry's relative offset 0 (== base) is corrupt for an offset index.
	ip := filepath.Join(dir, "a.index")
	must(t, os.WriteFile(ip, make([]byte, 16), 0o644))
	oi, err := NewOffsetIndex(ip, 0, 4096, nil)
	must(t, err)
	if err := oi.SanityCheck(); !errors.Is(err, ErrCorruptIndex) {
		t.Fatalf("zeroed index: %v", err)
	}
	must(t, oi.Close())
	// A length that is not a multiple of the entry size.
	ip2 := filepath.Join(dir, "b.index")
	b := binary.BigEndian.AppendUint32(nil, 5)
	b = binary.BigEndian.AppendUint32(b, 100)
	b = append(b, 1, 2, 3)
	must(t, os.WriteFile(ip2, b, 0o644))
	oi2, err := NewOffsetIndex(ip2, 0, 4096, nil)
	must(t, err)
	if err := oi2.SanityCheck(); !errors.Is(err, ErrCorruptIndex) {
		t.Fatalf("ragged index: %v", err)
	}
	_ = oi2.Delete()
	// Time index whose timestamps go backwards.
	tp := filepath.Join(dir, "c.timeindex")
	tb := binary.BigEndian.AppendUint64(nil, 500)
	tb = binary.BigEndian.AppendUint32(tb, 1)
	tb = binary.BigEndian.AppendUint64(tb, 100)
	tb = binary.BigEndian.AppendUint32(tb, 2)
	must(t, os.WriteFile(tp, tb, 0o644))
	ti, err := NewTimeIndex(tp, 0, 4096, nil)
	must(t, err)
	if err := ti.SanityCheck(); !errors.Is(err, ErrCorruptIndex) {
		t.Fatalf("backwards time index: %v", err)
	}
	must(t, ti.Close())
}

// FuzzIndexFiles opens arbitrary bytes as an offset index and a time index: opening, the sanity
// check, lookups and truncation must never panic, whatever the file holds.
func FuzzIndexFiles(f *testing.F) {
	f.Add([]byte{0, 0, 0, 3, 0, 0, 0x10, 0x68, 0, 0, 0, 10, 0, 0, 0x23, 0x28}, int64(1000), int64(1005))
	f.Add([]byte{}, int64(0), int64(0))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1}, int64(-5), int64(1<<40))
	f.Fuzz(func(t *testing.T, data []byte, base, target int64) {
		dir := t.TempDir()
		ip, tp := filepath.Join(dir, "f.index"), filepath.Join(dir, "f.timeindex")
		if err := os.WriteFile(ip, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		oi, err := NewOffsetIndex(ip, base, 4096, nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = oi.SanityCheck()
		_ = oi.CheckEntries(int(target & 0xffffff))
		_ = oi.Lookup(target)
		oi.TruncateTo(target)
		_ = oi.Append(target, 1)
		_ = oi.Close()
		ti, err := NewTimeIndex(tp, base, 4096, nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = ti.SanityCheck()
		_ = ti.CheckEntries()
		_ = ti.Lookup(target)
		_ = ti.LastEntry()
		ti.TruncateTo(target)
		_ = ti.MaybeAppend(target, target, true)
		_ = ti.Close()
	})
}
