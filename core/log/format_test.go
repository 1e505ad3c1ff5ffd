package log

// On-disk format acceptance (zkafka): a segment and its indexes laid out by hand from
// docs/formats.md §3.1 (with its CRC test vectors) and §4.2 are read correctly, and what
// zkafka writes for the same messages is the same bytes.

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/zkafka/zkafka/clients/record"
)

// docs/formats.md §3.1: v0, offset 0, key null, value "hello".
var specV0Hello = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // offset 0
	0x00, 0x00, 0x00, 0x13, // message_size 19
	0x87, 0xa7, 0x7a, 0xb2, // crc
	0x00,                   // magic 0
	0x00,                   // attributes
	0xff, 0xff, 0xff, 0xff, // key length -1
	0x00, 0x00, 0x00, 0x05, 'h', 'e', 'l', 'l', 'o',
}

// docs/formats.md §3.1: v1, offset 5, CreateTime 1487000000000, key "k", value "hello".
var specV1KHello = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, // offset 5
	0x00, 0x00, 0x00, 0x1c, // message_size 28
	0x71, 0x0d, 0xde, 0xbb, // crc
	0x01,                                           // magic 1
	0x00,                                           // attributes (CreateTime, no codec)
	0x00, 0x00, 0x01, 0x5a, 0x38, 0x1b, 0x56, 0x00, // timestamp
	0x00, 0x00, 0x00, 0x01, 'k',
	0x00, 0x00, 0x00, 0x05, 'h', 'e', 'l', 'l', 'o',
}

// The index entries zkafka must write for a segment holding the two entries above with
// index.interval.bytes 0: an entry before the second batch (offset 5 at byte 31), and the time
// index entry (1487000000000 -> 5).
var specIndex = []byte{0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x1f}
var specTimeIndex = []byte{0x00, 0x00, 0x01, 0x5a, 0x38, 0x1b, 0x56, 0x00, 0x00, 0x00, 0x00, 0x05}

func TestFormatHandBuiltSegmentIsRead(t *testing.T) {
	e := newLogEnv(t)
	must(t, os.MkdirAll(e.dir, 0o755))
	segment := append(append([]byte(nil), specV0Hello...), specV1KHello...)
	must(t, os.WriteFile(LogFilename(e.dir, 0), segment, 0o644))
	must(t, os.WriteFile(IndexFilename(e.dir, 0), specIndex, 0o644))
	must(t, os.WriteFile(TimeIndexFilename(e.dir, 0), specTimeIndex, 0o644))
	// The recovery point is at the end, so the hand-built indexes are used as they are.
	l := e.open(t, props(IndexIntervalBytesProp, "0"), 6)
	if l.LogEndOffset() != 6 {
		t.Fatalf("LEO %d, want 6", l.LogEndOffset())
	}
	a := l.ActiveSegment()
	if got := a.Index().Lookup(5); got != (OffsetPosition{5, 31}) {
		t.Fatalf("index lookup(5) = %v", got)
	}
	if got := a.TimeIndex().LastEntry(); got != (TimestampOffset{1487000000000, 5}) {
		t.Fatalf("time index last = %v", got)
	}
	fd, err := l.Read(0, 1000, nil, false)
	must(t, err)
	buf := make([]byte, fd.Records.SizeInBytes())
	_, err = fd.Records.(*record.FileRecords).ReadInto(buf, 0)
	must(t, err)
	if !bytes.Equal(buf, segment) {
		t.Fatal("read bytes differ from the file")
	}
	var got []record.LogEntry
	for le, err := range record.NewMemoryRecords(buf).ShallowEntries() {
		must(t, err)
		must(t, le.Record.EnsureValid())
		got = append(got, le)
	}
	if len(got) != 2 {
		t.Fatalf("%d entries", len(got))
	}
	v0, v1 := got[0], got[1]
	if v0.Offset != 0 || v0.Magic() != 0 || v0.Record.HasKey() || string(v0.Record.Value()) != "hello" || v0.Record.Checksum() != 0x87a77ab2 {
		t.Fatalf("v0 entry %v", v0)
	}
	if v1.Offset != 5 || v1.Magic() != 1 || string(v1.Record.Key()) != "k" || string(v1.Record.Value()) != "hello" ||
		v1.Record.Timestamp() != 1487000000000 || v1.Record.TimestampType() != record.CreateTime || v1.Record.Checksum() != 0x710ddebb {
		t.Fatalf("v1 entry %v", v1)
	}
	// Reading at 3 (between the two) starts at 5; the timestamp search finds 5.
	if es := readLog(t, l, 3, 1000, nil); len(es) != 1 || es[0].offset != 5 {
		t.Fatalf("read(3) = %v", es)
	}
	if to, ok, err := l.FetchOffsetsByTimestamp(1487000000000); err != nil || !ok || to != (TimestampOffset{1487000000000, 5}) {
		t.Fatalf("timestamp search = %v %v %v", to, ok, err)
	}
}

func TestFormatZkafkaWritesSpecBytes(t *testing.T) {
	e := newLogEnv(t)
	// A magic-0 topic: the leader converts a v1 "hello" (no key) to v0 at offset 0.
	l := e.open(t, props(IndexIntervalBytesProp, "0", MessageFormatVersionProp, "0.9.0"), 0)
	leaderAppend(t, l, msgSet(t, 0, record.NoTimestamp, "hello"))
	// Then a follower-style append of the v1 message at offset 5 (offsets kept as sent).
	b := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, 5, -1, 0)
	_, err := b.AppendWithOffset(5, 1487000000000, []byte("k"), []byte("hello"))
	must(t, err)
	if _, err := l.Append(b.Build(), false); err != nil {
		t.Fatal(err)
	}
	must(t, l.Close())
	want := append(append([]byte(nil), specV0Hello...), specV1KHello...)
	for _, c := range []struct {
		path string
		want []byte
	}{
		{LogFilename(e.dir, 0), want},
		{IndexFilename(e.dir, 0), specIndex},
		{TimeIndexFilename(e.dir, 0), specTimeIndex},
	} {
		got, err := os.ReadFile(c.path)
		must(t, err)
		if !bytes.Equal(got, c.want) {
			t.Fatalf("%s:\n got % x\nwant % x", filepath.Base(c.path), got, c.want)
		}
	}
}

func TestFormatIndexesTrimmedOnCloseAndRoll(t *testing.T) {
	e := newLogEnv(t)
	l := e.open(t, props(IndexIntervalBytesProp, "1", SegmentBytesProp, "400"), 0)
	for i := range 30 {
		leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds()+int64(i), "value"))
	}
	if l.NumberOfSegments() < 3 {
		t.Fatal("want rolled segments")
	}
	// Rolled segments are trimmed at once; the active one is preallocated until close.
	segs := l.LogSegments()
	for _, s := range segs[:len(segs)-1] {
		if fileSize(t, s.Index().File()) != int64(s.Index().Entries()*OffsetIndexEntrySize) ||
			fileSize(t, s.TimeIndex().File()) != int64(s.TimeIndex().Entries()*TimeIndexEntrySize) {
			t.Fatalf("rolled segment %d has untrimmed indexes", s.BaseOffset())
		}
	}
	active := segs[len(segs)-1]
	if fileSize(t, active.Index().File()) != 10485760 {
		t.Fatal("active index should be preallocated to segment.index.bytes")
	}
	idxPath, tidxPath := active.Index().File(), active.TimeIndex().File()
	n, tn := active.Index().Entries(), active.TimeIndex().Entries()
	must(t, l.Close())
	if fileSize(t, idxPath) != int64(n*OffsetIndexEntrySize) {
		t.Fatal("active index not trimmed on close")
	}
	if sz := fileSize(t, tidxPath); sz != int64(tn*TimeIndexEntrySize) && sz != int64((tn+1)*TimeIndexEntrySize) {
		t.Fatalf("active time index not trimmed on close: %d bytes", sz)
	}
}
