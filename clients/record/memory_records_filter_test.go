package record

import (
	"bytes"
	"fmt"
	"testing"
)

func TestFilterTo(t *testing.T) {
	plain := buildSet(t, 1, NONE, CreateTime, 0, 0, sampleKVs(4, 0))
	wrapped := buildSet(t, 1, GZIP, CreateTime, 4, 0, sampleKVs(4, 4))
	untouched := buildSet(t, 1, SNAPPY, CreateTime, 8, 0, []kv{{offset: 8, timestamp: 1487000000099, value: []byte("x")}, {offset: 10, timestamp: 1487000000098}})
	set := NewMemoryRecords(append(append(bytes.Clone(plain.Bytes()), wrapped.Bytes()...), untouched.Bytes()...))

	res, err := set.FilterTo(func(e LogEntry) bool { return e.Offset%2 == 0 }, []byte("prefix"), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(res.Output, []byte("prefix")) {
		t.Fatal("output must append to dst")
	}
	out := NewMemoryRecords(res.Output[len("prefix"):])
	var offsets []int64
	for _, e := range collect(t, out.DeepEntries()) {
		offsets = append(offsets, e.Offset)
	}
	if fmt.Sprint(offsets) != "[0 2 4 6 8 10]" {
		t.Fatalf("retained %v", offsets)
	}
	shallow := collect(t, out.ShallowEntries())
	if len(shallow) != 4 || shallow[2].Record.CompressionType() != GZIP || shallow[2].Offset != 6 ||
		!bytes.Equal(shallow[3].Record.Buffer(), collect(t, untouched.ShallowEntries())[0].Record.Buffer()) {
		t.Fatalf("shallow output %v", shallow)
	}
	if res.MessagesRead != 10 || res.MessagesRetained != 6 || res.BytesRead != set.SizeInBytes() ||
		res.BytesRetained != out.SizeInBytes() || res.MaxOffset != 10 {
		t.Fatalf("result %+v", res)
	}
	if res.MaxTimestamp != 1487000000099 || res.ShallowOffsetOfMaxTimestamp != 10 {
		t.Fatalf("max timestamp %d at %d", res.MaxTimestamp, res.ShallowOffsetOfMaxTimestamp)
	}
	// Rebuilt v1 wrapper keeps relative inner offsets from its new base: 4 -> 0, 6 -> 2.
	if got := innerOffsets(t, NewMemoryRecords(append(AppendLogEntryHeader(nil, shallow[2].Offset, shallow[2].Record.SizeInBytes()), shallow[2].Record.Buffer()...))); fmt.Sprint(got) != "[0 2]" {
		t.Fatalf("rebuilt inner offsets %v", got)
	}
}

func TestWithRecords(t *testing.T) {
	r1, _ := BuildRecord(1, 5, nil, []byte("a"), NONE, CreateTime)
	r2, _ := BuildRecord(1, 6, nil, []byte("b"), NONE, CreateTime)
	m, err := WithRecords(20, CreateTime, LZ4, 0, NewRecordFromBytes(r1), NewRecordFromBytes(r2))
	if err != nil {
		t.Fatal(err)
	}
	deep := collect(t, m.DeepEntries())
	if len(deep) != 2 || deep[0].Offset != 20 || deep[1].Offset != 21 || string(deep[1].Record.Value()) != "b" {
		t.Fatalf("%v", deep)
	}
	r0, _ := BuildRecord(0, NoTimestamp, nil, []byte("c"), NONE, CreateTime)
	if _, err := WithRecords(0, CreateTime, NONE, 0, NewRecordFromBytes(r1), NewRecordFromBytes(r0)); err == nil {
		t.Fatal("mixed magic accepted")
	}
}

func TestToMessageFormatDownConvertsForOldClients(t *testing.T) {
	v1 := buildSet(t, 1, GZIP, CreateTime, 30, 0, sampleKVs(5, 30))
	fr, _ := openTestFile(t, v1, buildSet(t, 1, NONE, CreateTime, 35, 0, sampleKVs(2, 35)))
	for name, recs := range map[string]interface {
		ToMessageFormat(int8) (Records, error)
		HasMatchingShallowMagic(int8) (bool, error)
	}{"memory": v1, "file": fr} {
		if ok, err := recs.HasMatchingShallowMagic(1); !ok || err != nil {
			t.Fatalf("%s: magic 1 expected", name)
		}
		out, err := recs.ToMessageFormat(0)
		if err != nil {
			t.Fatal(err)
		}
		m := out.(*MemoryRecords)
		if ok, _ := m.HasMatchingShallowMagic(0); !ok {
			t.Fatalf("%s: not converted", name)
		}
		shallow := collect(t, m.ShallowEntries())
		if len(shallow) != 1 || shallow[0].Record.CompressionType() != GZIP {
			t.Fatalf("%s: %d shallow entries", name, len(shallow))
		}
		deep := collect(t, m.DeepEntries())
		if deep[0].Offset != 30 || deep[len(deep)-1].Offset != shallow[0].Offset || deep[0].Record.Magic() != 0 {
			t.Fatalf("%s: deep %v", name, deep)
		}
	}
	// A set holding no whole message comes back untouched.
	part := NewMemoryRecords(v1.Bytes()[:20])
	if out, err := part.ToMessageFormat(0); err != nil || out != Records(part) {
		t.Fatalf("partial: %v %v", out, err)
	}
}
