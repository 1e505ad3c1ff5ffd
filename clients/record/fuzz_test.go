package record

import (
	"testing"
)

// FuzzMemoryRecordsDeep feeds arbitrary bytes to the shallow and deep iterators. They must never
// panic, and every message they yield must be self-consistent.
func FuzzMemoryRecordsDeep(f *testing.F) {
	for _, magic := range []int8{0, 1} {
		for _, codec := range allCodecs {
			for _, tsType := range []TimestampType{CreateTime, LogAppendTime} {
				m := buildSet(f, magic, codec, tsType, 7, 1234, sampleKVs(4, 7))
				f.Add(m.Bytes())
			}
		}
	}
	f.Add(wrap(f, 0, LZ4, 3, kafka010LZ4Frame(buildSet(f, 0, NONE, CreateTime, 0, 0, sampleKVs(4, 0)).Bytes())))
	f.Add([]byte{})
	f.Add(make([]byte, 30))

	f.Fuzz(func(t *testing.T, data []byte) {
		m := NewMemoryRecords(data)
		checkEntry := func(e LogEntry) {
			r := e.Record
			size := RecordOverhead(r.Magic()) + len(r.Key()) + len(r.Value())
			if size != r.SizeInBytes() {
				t.Fatalf("record of %d bytes has key %d and value %d bytes (magic %d)",
					r.SizeInBytes(), len(r.Key()), len(r.Value()), r.Magic())
			}
			if r.HasKey() != (r.Key() != nil) || r.HasNullValue() != (r.Value() == nil) {
				t.Fatal("null flags disagree with the accessors")
			}
			_ = r.String()
			_, _ = r.Timestamp(), r.TimestampType()
			_ = r.EnsureValid()
		}
		end := 0
		for e, err := range m.ShallowEntries() {
			if err != nil {
				break
			}
			if e.Position != end || e.Position+e.Size() > len(data) {
				t.Fatalf("entry at %d of size %d (expected at %d, set of %d)", e.Position, e.Size(), end, len(data))
			}
			end = e.Position + e.Size()
			checkEntry(e)
		}
		if m.ValidBytes() != end {
			t.Fatalf("ValidBytes %d, shallow iteration ended at %d", m.ValidBytes(), end)
		}
		_, _ = m.Validate(1000)
		for _, seq := range []func(func(LogEntry, error) bool){m.DeepEntries(), m.DeepEntriesEnsureMatchingMagic()} {
			for e, err := range seq {
				if err != nil {
					break
				}
				if e.Record.IsCompressed() {
					t.Fatal("deep iteration yielded a compressed message")
				}
				checkEntry(e)
			}
		}
	})
}
