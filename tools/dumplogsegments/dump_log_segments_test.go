package dumplogsegments

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/record"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// testdataDir is resolved before any test changes the working directory.
var testdataDir, _ = filepath.Abs("testdata")

// segmentBuilder writes a .log file by hand from the byte layout of docs/formats.md §3.
type segmentBuilder struct {
	t   *testing.T
	buf []byte
}

func (s *segmentBuilder) message(offset int64, magic int8, ts int64, key, value []byte, codec record.CompressionType, tsType record.TimestampType) int {
	s.t.Helper()
	msg, err := record.BuildRecord(magic, ts, key, value, codec, tsType)
	if err != nil {
		s.t.Fatal(err)
	}
	pos := len(s.buf)
	s.buf = record.AppendLogEntryHeader(s.buf, offset, len(msg))
	s.buf = append(s.buf, msg...)
	return pos
}

// gzipStored compresses with stored (level 0) deflate blocks, whose bytes do not depend on
// the compressor's heuristics, so the golden CRCs stay stable.
func gzipStored(t *testing.T, b []byte) []byte {
	var out bytes.Buffer
	w, err := gzip.NewWriterLevel(&out, gzip.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Close()
	return out.Bytes()
}

// innerSet builds an uncompressed message set with the given offsets (relative for magic 1).
func innerSet(t *testing.T, magic int8, offsets []int64, ts []int64, keys, values []string) []byte {
	var set []byte
	for i, o := range offsets {
		var k []byte
		if keys[i] != "" {
			k = []byte(keys[i])
		}
		msg, err := record.BuildRecord(magic, ts[i], k, []byte(values[i]), record.NONE, record.CreateTime)
		if err != nil {
			t.Fatal(err)
		}
		set = record.AppendLogEntryHeader(set, o, len(msg))
		set = append(set, msg...)
	}
	return set
}

type fixture struct {
	dir, log, index, timeindex string
}

// writeFixture lays out one segment (base offset 0) with uncompressed v1 and v0 messages, a
// tombstone, a CreateTime gzip wrapper, a LogAppendTime gzip wrapper, an offset gap and 5
// bytes of trailing garbage, plus hand-written .index and .timeindex files (one index entry
// deliberately wrong).
func writeFixture(t *testing.T) fixture {
	dir := t.TempDir()
	s := &segmentBuilder{t: t}
	s.message(0, 1, 1490000000000, []byte("abc"), []byte("hello"), record.NONE, record.CreateTime)
	s.message(1, 1, 1490000000001, nil, []byte("world"), record.NONE, record.CreateTime)
	s.message(2, 1, 1490000000002, []byte("abc"), nil, record.NONE, record.CreateTime)
	inner := innerSet(t, 1, []int64{0, 1, 2}, []int64{1490000000005, 1490000000003, 1490000000004},
		[]string{"k3", "k4", "k5"}, []string{"v3", "v4", "v5"})
	p5 := s.message(5, 1, 1490000000005, nil, gzipStored(t, inner), record.GZIP, record.CreateTime)
	s.message(6, 0, record.NoTimestamp, []byte("k"), []byte("old"), record.NONE, record.CreateTime)
	p8 := s.message(8, 1, 1490000000008, []byte("gap"), []byte("after"), record.NONE, record.CreateTime)
	inner = innerSet(t, 1, []int64{0, 1}, []int64{1, 2}, []string{"", "x"}, []string{"la1", "la2"})
	p10 := s.message(10, 1, 1490000009999, nil, gzipStored(t, inner), record.GZIP, record.LogAppendTime)
	s.buf = append(s.buf, 0, 0, 0, 0, 0)

	f := fixture{dir: dir}
	f.log = filepath.Join(dir, "00000000000000000000.log")
	f.index = filepath.Join(dir, "00000000000000000000.index")
	f.timeindex = filepath.Join(dir, "00000000000000000000.timeindex")
	if err := os.WriteFile(f.log, s.buf, 0o644); err != nil {
		t.Fatal(err)
	}
	var idx []byte
	for _, e := range [][2]int32{{3, int32(p5)}, {7, int32(p8)}, {9, int32(p10)}} {
		idx = binary.BigEndian.AppendUint32(idx, uint32(e[0]))
		idx = binary.BigEndian.AppendUint32(idx, uint32(e[1]))
	}
	if err := os.WriteFile(f.index, idx, 0o644); err != nil {
		t.Fatal(err)
	}
	var tidx []byte
	for _, e := range []struct {
		ts  int64
		off int32
	}{{1490000000005, 5}, {1490000000008, 8}, {1490000000007, 10}} {
		tidx = binary.BigEndian.AppendUint64(tidx, uint64(e.ts))
		tidx = binary.BigEndian.AppendUint32(tidx, uint32(e.off))
	}
	if err := os.WriteFile(f.timeindex, tidx, 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(testdataDir, name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("%s mismatch\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// runDump runs the tool from inside the fixture directory (so paths in the output are short
// and stable) and returns stdout and stderr.
func runDump(t *testing.T, f fixture, args ...string) (string, string) {
	t.Helper()
	t.Chdir(f.dir)
	opts, err := ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	opts.Stderr = &errOut
	if err := Run(context.Background(), opts, &out); err != nil {
		t.Fatal(err)
	}
	return out.String(), strings.ReplaceAll(errOut.String(), f.dir, "<dir>")
}

func TestDumpLogGolden(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
	}{
		{"log_shallow.golden", []string{"--files", "00000000000000000000.log"}},
		{"log_deep_print.golden", []string{"--files", "00000000000000000000.log", "--deep-iteration", "--print-data-log"}},
		{"index.golden", []string{"--files", "00000000000000000000.index,00000000000000000000.timeindex,other.txt"}},
		{"index_verify_only.golden", []string{"--files=00000000000000000000.index,00000000000000000000.timeindex", "--verify-index-only"}},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			f := writeFixture(t)
			out, errOut := runDump(t, f, tc.args...)
			checkGolden(t, tc.golden, out+"--- stderr\n"+errOut)
		})
	}
}

func TestDumpIndexSanityCheck(t *testing.T) {
	f := writeFixture(t)
	out, _ := runDump(t, f, "--files", "00000000000000000000.index,00000000000000000000.timeindex", "--index-sanity-check")
	want := "Dumping 00000000000000000000.index\n00000000000000000000.index passed sanity check.\n" +
		"Dumping 00000000000000000000.timeindex\n00000000000000000000.timeindex passed sanity check.\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	// A time index whose last timestamp is below its first fails the broker's check.
	var tidx []byte
	tidx = binary.BigEndian.AppendUint64(tidx, 10)
	tidx = binary.BigEndian.AppendUint32(tidx, 1)
	tidx = binary.BigEndian.AppendUint64(tidx, 5)
	tidx = binary.BigEndian.AppendUint32(tidx, 2)
	if err := os.WriteFile(f.timeindex, tidx, 0o644); err != nil {
		t.Fatal(err)
	}
	opts, _ := ParseArgs([]string{"--files", f.timeindex, "--index-sanity-check"})
	if err := Run(context.Background(), opts, &bytes.Buffer{}); err == nil {
		t.Fatal("corrupt time index passed the sanity check")
	}
}

func TestDumpCorruptLogFails(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "00000000000000000000.log")
	// A header announcing a 3-byte message: smaller than any message can be.
	b := record.AppendLogEntryHeader(nil, 0, 3)
	b = append(b, 1, 2, 3, 4)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	opts, _ := ParseArgs([]string{"--files", p})
	var out bytes.Buffer
	err := Run(context.Background(), opts, &out)
	if err == nil || !strings.Contains(err.Error(), "Record size is smaller than minimum record overhead (14).") {
		t.Fatalf("err = %v", err)
	}
	// --max-message-size below a message's size is corrupt too.
	f := writeFixture(t)
	opts, _ = ParseArgs([]string{"--files", f.log, "--max-message-size", "20"})
	err = Run(context.Background(), opts, &out)
	if err == nil || !strings.Contains(err.Error(), "Record size exceeds the largest allowable message size (20).") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseArgs(t *testing.T) {
	o, err := ParseArgs([]string{"--files", "a.log,b.index", "--deep", "--key-decoder-class", "--max-message-size=10"})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Files) != 2 || !o.DeepIteration || !o.PrintDataLog || o.KeyDecoder != StringDecoder || o.MaxMessageSize != 10 {
		t.Fatalf("%+v", o)
	}
	o, err = ParseArgs([]string{"--files", "a.log", "--value-decoder-class", DefaultDecoder, "--offsets-decoder", "--verify-index-only", "--index-sanity-check"})
	if err != nil || o.ValueDecoder != DefaultDecoder || !o.OffsetsDecoder || !o.PrintDataLog || !o.VerifyIndexOnly || !o.IndexSanityCheck {
		t.Fatalf("%+v %v", o, err)
	}
	o, err = ParseArgs([]string{"--files", "a.log"})
	if err != nil || o.PrintDataLog || o.MaxMessageSize != DefaultMaxMessageSize {
		t.Fatalf("%+v %v", o, err)
	}
	for _, bad := range [][]string{
		nil,
		{"--print-data-log"},
		{"--files"},
		{"--files", "a", "--max-message-size", "x"},
		{"--files", "a", "--bogus"},
		{"--files", "a", "--d"}, // ambiguous: deep-iteration? no: only deep-iteration starts with d
	} {
		if _, err := ParseArgs(bad); err == nil {
			if len(bad) == 3 && bad[2] == "--d" {
				continue
			}
			t.Errorf("ParseArgs(%q) accepted", bad)
		}
	}
	if _, err := ParseArgs([]string{"--files", "a", "--print"}); err != nil {
		t.Errorf("unique prefix rejected: %v", err)
	}
	if _, err := ParseArgs([]string{}); err == nil || !strings.Contains(err.Error(), UsageMessage) {
		t.Errorf("no-args error: %v", err)
	}
	if _, err := ParseArgs([]string{"--deep-iteration"}); err == nil || !strings.Contains(err.Error(), `Missing required argument "[files]"`) {
		t.Errorf("missing files error: %v", err)
	}
}

func TestOffsetsDecoder(t *testing.T) {
	str := func(b []byte, s string) []byte {
		b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
		return append(b, s...)
	}
	// offset commit key v1 + value v1
	key := binary.BigEndian.AppendUint16(nil, 1)
	key = str(key, "grp")
	key = str(key, "topic")
	key = binary.BigEndian.AppendUint32(key, 3)
	val := binary.BigEndian.AppendUint16(nil, 1)
	val = binary.BigEndian.AppendUint64(val, 42)
	val = str(val, "meta")
	val = binary.BigEndian.AppendUint64(val, 1)
	val = binary.BigEndian.AppendUint64(val, 2)
	msg, _ := record.BuildRecord(1, 0, key, val, record.NONE, record.CreateTime)
	k, v, err := offsetsMessageParser{}.parse(record.NewRecordFromBytes(msg))
	if err != nil || *k != "offset::grp:topic:3" || *v != "42:meta" {
		t.Fatalf("%v %v %v", k, v, err)
	}
	// group metadata key v2 + value v1 with one consumer member
	gkey := str(binary.BigEndian.AppendUint16(nil, 2), "grp")
	assign := binary.BigEndian.AppendUint16(nil, 0)
	assign = binary.BigEndian.AppendUint32(assign, 1)
	assign = str(assign, "t")
	assign = binary.BigEndian.AppendUint32(assign, 2)
	assign = binary.BigEndian.AppendUint32(assign, 0)
	assign = binary.BigEndian.AppendUint32(assign, 1)
	assign = binary.BigEndian.AppendUint32(assign, 2)
	assign = append(assign, 0x0a, 0xbc)
	gval := binary.BigEndian.AppendUint16(nil, 1)
	gval = str(gval, "consumer")
	gval = binary.BigEndian.AppendUint32(gval, 5)
	gval = str(gval, "range")
	gval = str(gval, "m1")
	gval = binary.BigEndian.AppendUint32(gval, 1)
	gval = str(gval, "m1")
	gval = str(gval, "client")
	gval = str(gval, "/127.0.0.1")
	gval = binary.BigEndian.AppendUint32(gval, 300000)
	gval = binary.BigEndian.AppendUint32(gval, 10000)
	gval = binary.BigEndian.AppendUint32(gval, 0)
	gval = binary.BigEndian.AppendUint32(gval, uint32(len(assign)))
	gval = append(gval, assign...)
	msg, _ = record.BuildRecord(1, 0, gkey, gval, record.NONE, record.CreateTime)
	k, v, err = offsetsMessageParser{}.parse(record.NewRecordFromBytes(msg))
	if err != nil || *k != "metadata::grp" || *v != "consumer:range:5:{m1=[t-0, t-1]:ABC}" {
		t.Fatalf("%v %v %v", deref(k), deref(v), err)
	}
	// truncated value: an error, not a panic
	msg, _ = record.BuildRecord(1, 0, gkey, gval[:20], record.NONE, record.CreateTime)
	if _, _, err := (offsetsMessageParser{}).parse(record.NewRecordFromBytes(msg)); err == nil {
		t.Fatal("truncated group metadata accepted")
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
