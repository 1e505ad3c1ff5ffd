package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
)

var allCodecs = []CompressionType{NONE, GZIP, SNAPPY, LZ4}

type kv struct {
	offset    int64
	timestamp int64
	key       []byte
	value     []byte
}

func sampleKVs(n int, base int64) []kv {
	out := make([]kv, n)
	for i := range out {
		var key []byte
		if i%3 != 0 {
			key = []byte(fmt.Sprintf("key-%d", i))
		}
		var value []byte
		if i%5 != 4 {
			value = bytes.Repeat([]byte(fmt.Sprintf("value-%d;", i)), i%7+1)
		}
		out[i] = kv{offset: base + int64(i), timestamp: 1487000000000 + int64((i*37)%11), key: key, value: value}
	}
	return out
}

func buildSet(t testing.TB, magic int8, codec CompressionType, tsType TimestampType, base, logAppendTime int64, kvs []kv) *MemoryRecords {
	t.Helper()
	b := NewMemoryRecordsBuilder(magic, codec, tsType, base, logAppendTime, 0)
	for _, m := range kvs {
		if _, err := b.AppendWithOffset(m.offset, m.timestamp, m.key, m.value); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

func collect(t testing.TB, seq func(func(LogEntry, error) bool)) []LogEntry {
	t.Helper()
	var out []LogEntry
	for e, err := range seq {
		if err != nil {
			t.Fatalf("after %d entries: %v", len(out), err)
		}
		out = append(out, e)
	}
	return out
}

func TestShallowAndDeepIterationEachCodecAndMagic(t *testing.T) {
	const base = 1000
	kvs := sampleKVs(25, base)
	for _, magic := range []int8{0, 1} {
		for _, codec := range allCodecs {
			t.Run(fmt.Sprintf("magic%d/%s", magic, codec), func(t *testing.T) {
				m := buildSet(t, magic, codec, CreateTime, base, 0, kvs)
				shallow := collect(t, m.ShallowEntries())
				deep := collect(t, m.DeepEntries())
				if codec == NONE {
					if len(shallow) != len(kvs) {
						t.Fatalf("%d shallow entries", len(shallow))
					}
				} else {
					if len(shallow) != 1 {
						t.Fatalf("%d shallow entries, want one wrapper", len(shallow))
					}
					w := shallow[0]
					if w.Offset != base+int64(len(kvs))-1 || w.Record.CompressionType() != codec || w.Record.HasKey() ||
						w.Record.Magic() != magic || !w.Record.IsValid() || w.Size() != m.SizeInBytes() {
						t.Fatalf("wrapper %v", w)
					}
					if magic == 1 {
						maxTs := int64(NoTimestamp)
						for _, m := range kvs {
							maxTs = max(maxTs, m.timestamp)
						}
						if w.Record.Timestamp() != maxTs || w.Record.TimestampType() != CreateTime {
							t.Fatalf("wrapper timestamp %d (%v), want max %d", w.Record.Timestamp(), w.Record.TimestampType(), maxTs)
						}
					}
				}
				if len(deep) != len(kvs) {
					t.Fatalf("%d deep entries", len(deep))
				}
				for i, e := range deep {
					want := kvs[i]
					wantTs := want.timestamp
					if magic == 0 {
						wantTs = NoTimestamp
					}
					r := e.Record
					if e.Offset != want.offset || r.Magic() != magic || r.Timestamp() != wantTs ||
						!bytes.Equal(r.Key(), want.key) || (r.Key() == nil) != (want.key == nil) ||
						!bytes.Equal(r.Value(), want.value) || (r.Value() == nil) != (want.value == nil) ||
						r.CompressionType() != NONE || !r.IsValid() {
						t.Fatalf("deep %d: offset %d %v, want %+v", i, e.Offset, r, want)
					}
				}
				// The entries' own DeepEntries agree with the set's.
				var viaEntries []LogEntry
				for _, s := range shallow {
					viaEntries = append(viaEntries, collect(t, s.DeepEntries())...)
				}
				if len(viaEntries) != len(deep) || viaEntries[len(deep)-1].Offset != deep[len(deep)-1].Offset {
					t.Fatal("LogEntry.DeepEntries disagrees with MemoryRecords.DeepEntries")
				}
				if n, err := m.Validate(0); err != nil || n != m.SizeInBytes() || m.ValidBytes() != n {
					t.Fatalf("Validate = %d, %v", n, err)
				}
			})
		}
	}
}

// innerOffsets decompresses the single wrapper of m and returns the offsets as stored.
func innerOffsets(t *testing.T, m *MemoryRecords) []int64 {
	t.Helper()
	shallow := collect(t, m.ShallowEntries())
	r := shallow[0].Record
	data, err := decompress(r.CompressionType(), r.Magic(), r.Value())
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for e, err := range NewMemoryRecords(data).ShallowEntries() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e.Offset)
	}
	return out
}

func TestInnerOffsetsRelativeForV1AbsoluteForV0(t *testing.T) {
	kvs := sampleKVs(4, 500)
	for _, codec := range []CompressionType{GZIP, SNAPPY, LZ4} {
		v1 := innerOffsets(t, buildSet(t, 1, codec, CreateTime, 500, 0, kvs))
		if fmt.Sprint(v1) != "[0 1 2 3]" {
			t.Errorf("%s v1 stored inner offsets %v, want relative", codec, v1)
		}
		v0 := innerOffsets(t, buildSet(t, 0, codec, CreateTime, 500, 0, kvs))
		if fmt.Sprint(v0) != "[500 501 502 503]" {
			t.Errorf("%s v0 stored inner offsets %v, want absolute", codec, v0)
		}
	}
}

func TestRelativeOffsetsWithGapsAndRewrittenWrapperOffset(t *testing.T) {
	// A compacted v1 wrapper: inner relative offsets 0, 3, 7; the broker moved the wrapper to 1007.
	kvs := []kv{{offset: 100, timestamp: 1}, {offset: 103, timestamp: 2}, {offset: 107, timestamp: 3}}
	for i := range kvs {
		kvs[i].value = []byte{byte(i)}
	}
	m := buildSet(t, 1, GZIP, CreateTime, 100, 0, kvs)
	if got := innerOffsets(t, m); fmt.Sprint(got) != "[0 3 7]" {
		t.Fatalf("stored %v", got)
	}
	for e := range m.ShallowEntries() {
		e.SetOffset(1007)
	}
	var got []int64
	for _, e := range collect(t, m.DeepEntries()) {
		got = append(got, e.Offset)
	}
	if fmt.Sprint(got) != "[1000 1003 1007]" {
		t.Fatalf("absolute offsets %v", got)
	}
	if binary.BigEndian.Uint64(m.Bytes()) != 1007 {
		t.Fatal("SetOffset did not write through")
	}
}

func TestLogAppendTimeWrapperAndInPlaceTimestamps(t *testing.T) {
	kvs := sampleKVs(3, 0)
	m := buildSet(t, 1, SNAPPY, LogAppendTime, 0, 5555, kvs)
	w := collect(t, m.ShallowEntries())[0]
	if w.Record.TimestampType() != LogAppendTime || w.Record.Timestamp() != 5555 || w.Record.Attributes() != 0x0a {
		t.Fatalf("wrapper %v", w.Record)
	}
	for _, e := range collect(t, m.DeepEntries()) {
		if e.Record.Timestamp() != 5555 || e.Record.TimestampType() != LogAppendTime {
			t.Fatalf("inner %v", e.Record)
		}
	}
	// In place: switch the wrapper to CreateTime with a new max, as LogValidator does.
	w.SetCreateTime(42)
	if err := w.Record.EnsureValid(); err != nil {
		t.Fatal(err)
	}
	for _, e := range collect(t, m.DeepEntries()) {
		// inner messages now read their own timestamp fields (LogAppendTime wrote 5555 into them)
		if e.Record.TimestampType() != CreateTime || e.Record.Timestamp() != 5555 {
			t.Fatalf("inner after SetCreateTime %v", e.Record)
		}
	}
	if err := w.SetLogAppendTime(99); err != nil || w.Record.Timestamp() != 99 || !w.Record.IsValid() {
		t.Fatalf("SetLogAppendTime: %v %v", err, w.Record)
	}
	v0 := collect(t, buildSet(t, 0, NONE, CreateTime, 0, 0, kvs).ShallowEntries())[0]
	if err := v0.SetCreateTime(1); !errors.Is(err, ErrIllegalArgument) {
		t.Fatalf("v0 SetCreateTime: %v", err)
	}
}

func TestBuilderInfoAndOffsetOrder(t *testing.T) {
	b := NewMemoryRecordsBuilder(1, NONE, CreateTime, 10, 0, 0)
	for _, ts := range []int64{5, 9, 7} {
		if _, err := b.Append(ts, nil, []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.AppendWithOffset(12, 1, nil, nil); !errors.Is(err, ErrIllegalArgument) {
		t.Fatalf("non-increasing offset accepted: %v", err)
	}
	if info := b.Info(); info != (RecordsInfo{MaxTimestamp: 9, ShallowOffsetOfMaxTimestamp: 11}) {
		t.Fatalf("info %+v", info)
	}
	m := b.Build()
	if _, err := b.Append(1, nil, nil); !errors.Is(err, ErrIllegalArgument) || b.Build() != m {
		t.Fatalf("append after build: %v", err)
	}
	c := NewMemoryRecordsBuilder(1, LZ4, CreateTime, 10, 0, 0)
	c.Append(5, nil, nil)
	c.Append(9, nil, nil)
	c.Append(7, nil, nil)
	if info := c.Info(); info != (RecordsInfo{MaxTimestamp: 9, ShallowOffsetOfMaxTimestamp: 12}) {
		t.Fatalf("compressed info %+v", info)
	}
	if NewMemoryRecordsBuilder(1, GZIP, CreateTime, 0, 0, 0).Build().SizeInBytes() != 0 {
		t.Fatal("empty compressed builder must build an empty set")
	}
	if _, err := NewMemoryRecordsBuilder(1, CompressionType(5), CreateTime, 0, 0, 0).Append(1, nil, nil); !errors.Is(err, ErrIllegalArgument) {
		t.Fatalf("codec 5: %v", err)
	}
}

func TestBuilderWriteLimit(t *testing.T) {
	b := NewMemoryRecordsBuilder(1, NONE, CreateTime, 0, 0, 100)
	big := make([]byte, 200)
	if !b.HasRoomFor(nil, big) {
		t.Fatal("the first record always has room")
	}
	b.Append(1, nil, big)
	if !b.IsFull() || b.HasRoomFor(nil, nil) {
		t.Fatal("over the limit")
	}
}

func TestConvertAndAppend(t *testing.T) {
	v0 := buildSet(t, 0, NONE, CreateTime, 0, 0, sampleKVs(3, 0))
	b := NewMemoryRecordsBuilder(1, GZIP, LogAppendTime, 50, 777, 0)
	for e := range v0.ShallowEntries() {
		if err := b.ConvertAndAppend(e.Record); err != nil {
			t.Fatal(err)
		}
	}
	for i, e := range collect(t, b.Build().DeepEntriesEnsureMatchingMagic()) {
		if e.Offset != int64(50+i) || e.Record.Magic() != 1 || e.Record.Timestamp() != 777 {
			t.Fatalf("converted %d: %d %v", i, e.Offset, e.Record)
		}
	}
}

func TestTruncatedSetsStopAtLastWholeEntry(t *testing.T) {
	for _, codec := range allCodecs {
		m := buildSet(t, 1, codec, CreateTime, 0, 0, sampleKVs(10, 0))
		// Two whole sets back to back, then every possible cut.
		full := append(bytes.Clone(m.Bytes()), m.Bytes()...)
		one := m.SizeInBytes()
		for cut := 0; cut <= len(full); cut++ {
			set := NewMemoryRecords(full[:cut])
			wantShallow := cut / one
			if codec == NONE {
				wantShallow = 0
				for e := range NewMemoryRecords(full).ShallowEntries() {
					if e.Position+e.Size() <= cut {
						wantShallow++
					}
				}
			}
			n := 0
			for _, err := range set.ShallowEntries() {
				if err != nil {
					t.Fatalf("%s cut %d: %v", codec, cut, err)
				}
				n++
			}
			if n != wantShallow {
				t.Fatalf("%s cut %d: %d shallow entries, want %d", codec, cut, n, wantShallow)
			}
			if vb, err := set.Validate(0); err != nil || vb > cut || vb != set.ValidBytes() {
				t.Fatalf("%s cut %d: valid bytes %d, %v", codec, cut, vb, err)
			}
			if len(collect(t, set.DeepEntries()))%10 != 0 && codec != NONE {
				t.Fatalf("%s cut %d: a partial wrapper leaked inner messages", codec, cut)
			}
		}
	}
}

func TestCorruptSetsReportErrorsWithPosition(t *testing.T) {
	good := buildSet(t, 1, NONE, CreateTime, 0, 0, sampleKVs(2, 0)).Bytes()
	first := collect(t, NewMemoryRecords(good).ShallowEntries())[0].Size()

	small := bytes.Clone(good)
	binary.BigEndian.PutUint32(small[first+SizeOffset:], 13)
	var got []error
	for e, err := range NewMemoryRecords(small).ShallowEntries() {
		if err == nil && e.Offset != 0 {
			t.Fatal("unexpected entry")
		}
		got = append(got, err)
	}
	if len(got) != 2 || got[0] != nil || !errors.Is(got[1], ErrCorruptRecord) ||
		!bytes.Contains([]byte(got[1].Error()), []byte(fmt.Sprintf("position %d", first))) {
		t.Fatalf("errors %v", got)
	}

	if _, err := NewMemoryRecords(good).Validate(first - 1); !errors.Is(err, ErrRecordTooLarge) {
		t.Fatalf("max size: %v", err)
	}
	for _, err := range NewMemoryRecords(good).ShallowEntriesWithMaxSize(first - LogOverhead - 1) {
		if !errors.Is(err, ErrCorruptRecord) {
			t.Fatalf("max record size: %v", err)
		}
		break
	}

	crc := bytes.Clone(good)
	crc[len(crc)-1] ^= 1
	if n, err := NewMemoryRecords(crc).Validate(0); !errors.Is(err, ErrInvalidRecord) || n != first {
		t.Fatalf("crc: %d %v", n, err)
	}

	badKey := bytes.Clone(good)
	binary.BigEndian.PutUint32(badKey[LogOverhead+KeySizeOffsetV1:], 1000)
	for _, err := range NewMemoryRecords(badKey).ShallowEntries() {
		if !errors.Is(err, ErrCorruptRecord) {
			t.Fatalf("bad key length: %v", err)
		}
		break
	}
}

// wrap builds a wrapper entry by hand around an arbitrary (already compressed) payload.
func wrap(t testing.TB, magic int8, codec CompressionType, offset int64, payload []byte) []byte {
	t.Helper()
	rec, err := BuildRecord(magic, 0, nil, payload, codec, CreateTime)
	if err != nil {
		t.Fatal(err)
	}
	return append(AppendLogEntryHeader(nil, offset, len(rec)), rec...)
}

func TestDeepIterationRejectsBadWrappers(t *testing.T) {
	inner := buildSet(t, 1, NONE, CreateTime, 0, 0, sampleKVs(2, 0)).Bytes()
	nestedInner := buildSet(t, 1, GZIP, CreateTime, 0, 0, sampleKVs(2, 0)).Bytes()
	v0Inner := buildSet(t, 0, NONE, CreateTime, 0, 0, sampleKVs(2, 0)).Bytes()
	gz := func(b []byte) []byte { out, _ := appendCompressed(nil, GZIP, 1, b); return out }
	for _, tc := range []struct {
		name    string
		set     []byte
		matchMg bool
		want    error
	}{
		{"garbage gzip", wrap(t, 1, GZIP, 1, []byte("not gzip at all")), false, ErrCorruptRecord},
		{"truncated gzip", wrap(t, 1, GZIP, 1, gz(inner)[:20]), false, ErrCorruptRecord},
		{"garbage lz4", wrap(t, 1, LZ4, 1, []byte{1, 2, 3, 4, 5, 6, 7, 8}), false, ErrCorruptRecord},
		{"garbage snappy", wrap(t, 1, SNAPPY, 1, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}), false, ErrCorruptRecord},
		{"unknown codec", wrap(t, 1, CompressionType(5), 1, gz(inner)), false, ErrCorruptRecord},
		{"null payload", func() []byte {
			rec, _ := BuildRecord(1, 0, nil, nil, GZIP, CreateTime)
			return append(AppendLogEntryHeader(nil, 0, len(rec)), rec...)
		}(), false, ErrCorruptRecord},
		{"empty inner set", wrap(t, 1, GZIP, 1, gz(nil)), false, ErrCorruptRecord},
		{"nested compression", wrap(t, 1, GZIP, 1, gz(nestedInner)), false, ErrInvalidRecord},
		{"magic mismatch", wrap(t, 1, GZIP, 1, gz(v0Inner)), true, ErrInvalidRecord},
	} {
		m := NewMemoryRecords(tc.set)
		seq := m.DeepEntries()
		if tc.matchMg {
			seq = m.DeepEntriesEnsureMatchingMagic()
		}
		var gotErr error
		for _, err := range seq {
			if err != nil {
				gotErr = err
			}
		}
		if !errors.Is(gotErr, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, gotErr, tc.want)
		}
	}
	// Without the magic check, v0 inner messages in a v1 wrapper are read (as Kafka's consumer does).
	if n := len(collect(t, NewMemoryRecords(wrap(t, 1, GZIP, 1, gz(v0Inner))).DeepEntries())); n != 2 {
		t.Fatalf("%d entries", n)
	}
}

// A builder given a buffer writes into it while the set fits, and the set is the same as one
// built without a buffer.
func TestMemoryRecordsBuilderWithBuffer(t *testing.T) {
	buf := make([]byte, 1024)
	b := NewMemoryRecordsBuilderWithBuffer(buf, MagicValueV1, NONE, CreateTime, 0, -1, 1024)
	ref := NewMemoryRecordsBuilder(MagicValueV1, NONE, CreateTime, 0, -1, 1024)
	for i := 0; i < 5; i++ {
		if _, err := b.Append(int64(i), []byte("k"), []byte("v")); err != nil {
			t.Fatal(err)
		}
		ref.Append(int64(i), []byte("k"), []byte("v")) //nolint:errcheck
	}
	got := b.Build().Bytes()
	if &got[0] != &buf[0] {
		t.Fatal("the set was not built in the given buffer")
	}
	if string(got) != string(ref.Build().Bytes()) {
		t.Fatal("sets differ")
	}
}

// ShallowHeaders agrees with ValidBytes and the last shallow entry of a validated set, also with
// a torn last entry and with a compressed wrapper (whose offset is its last inner offset).
func TestShallowHeadersAgreesWithShallowEntries(t *testing.T) {
	var kvs []kv
	for i := 0; i < 50; i++ {
		kvs = append(kvs, kv{offset: int64(i), timestamp: 1, value: []byte("value")})
	}
	plain := buildSet(t, 1, NONE, CreateTime, 0, 0, kvs)
	wrapped := buildSet(t, 1, GZIP, CreateTime, 50, 0, []kv{{offset: 50, timestamp: 1, value: []byte("a")}, {offset: 51, timestamp: 1, value: []byte("b")}})
	all := append(append([]byte{}, plain.Bytes()...), wrapped.Bytes()...)
	for _, n := range []int{0, 5, plain.SizeInBytes() - 1, plain.SizeInBytes(), plain.SizeInBytes() + 7, len(all)} {
		m := NewMemoryRecords(all[:n])
		valid, last := m.ShallowHeaders()
		wantLast := int64(-1)
		for e, err := range m.ShallowEntries() {
			if err != nil {
				t.Fatal(err)
			}
			wantLast = e.Offset
		}
		if valid != m.ValidBytes() || last != wantLast {
			t.Fatalf("first %d bytes: ShallowHeaders = (%d, %d), want (%d, %d)", n, valid, last, m.ValidBytes(), wantLast)
		}
	}
}
