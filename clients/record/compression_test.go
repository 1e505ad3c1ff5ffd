package record

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/klauspost/compress/snappy"
	"github.com/pierrec/lz4/v4"
)

func TestXXHash32Vectors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint32
	}{
		{"", 0x02cc5d05},
		{"a", 0x550d7456},
		{"abc", 0x32d153ff},
		{"Nobody inspects the spammish repetition", 0xe2293b2f},
	} {
		if got := xxhash32([]byte(tc.in), 0); got != tc.want {
			t.Errorf("xxhash32(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

// TestLZ4HeaderChecksumPerMagic checks the KAFKA-3160 rule byte for byte (docs/formats.md §3.3).
func TestLZ4HeaderChecksumPerMagic(t *testing.T) {
	for _, tc := range []struct {
		magic int8
		want  []byte
	}{
		{MagicValueV1, []byte{0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82}},
		{MagicValueV0, []byte{0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x1a}},
	} {
		frame, err := appendCompressed(nil, LZ4, tc.magic, []byte("hello hello hello hello"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(frame[:7], tc.want) {
			t.Errorf("magic %d frame header % x, want % x", tc.magic, frame[:7], tc.want)
		}
		if !bytes.Equal(frame[len(frame)-4:], []byte{0, 0, 0, 0}) {
			t.Errorf("magic %d: no end mark", tc.magic)
		}
	}
}

// kafka010LZ4Frame is what Kafka 0.10's KafkaLZ4BlockOutputStream wrote for a magic-0 wrapper:
// FLG 0x60, BD 0x40, the broken header checksum 0x1A (xxhash over the magic bytes too), one block
// stored raw (high bit of the size set), then the end mark.
func kafka010LZ4Frame(data []byte) []byte {
	f := []byte{0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x1a}
	f = binary.LittleEndian.AppendUint32(f, uint32(len(data))|0x80000000)
	f = append(f, data...)
	return binary.LittleEndian.AppendUint32(f, 0)
}

func TestLZ4ReadsWhatEachMagicProduced(t *testing.T) {
	inner := buildSet(t, 0, NONE, CreateTime, 40, 0, sampleKVs(3, 40)).Bytes()
	broken := kafka010LZ4Frame(inner)

	// A magic-0 wrapper written by real Kafka 0.10 (broken HC) is read.
	entries := collect(t, NewMemoryRecords(wrap(t, 0, LZ4, 42, broken)).DeepEntries())
	if len(entries) != 3 || entries[0].Offset != 40 || entries[2].Offset != 42 {
		t.Fatalf("magic 0 broken-HC wrapper: %v", entries)
	}
	// The same frame inside a magic-1 wrapper fails: magic 1 verifies the checksum.
	inner1 := buildSet(t, 1, NONE, CreateTime, 0, 0, sampleKVs(3, 0)).Bytes()
	var gotErr error
	for _, err := range NewMemoryRecords(wrap(t, 1, LZ4, 2, kafka010LZ4Frame(inner1))).DeepEntries() {
		gotErr = err
	}
	if !errors.Is(gotErr, ErrCorruptRecord) {
		t.Fatalf("magic 1 with broken HC: %v", gotErr)
	}
	// A correct-HC frame (what pierrec/lz4 and every magic-1 writer produce, with block checksums
	// here to cross-check xxhash32) is read for magic 1, and also for magic 0 (HC skipped).
	var std bytes.Buffer
	zw := lz4.NewWriter(&std)
	if err := zw.Apply(lz4.BlockChecksumOption(true), lz4.ChecksumOption(true), lz4.BlockSizeOption(lz4.Block64Kb)); err != nil {
		t.Fatal(err)
	}
	zw.Write(inner1)
	zw.Close()
	if std.Bytes()[4]&lz4FLGBlockChecksum == 0 {
		t.Fatal("pierrec did not set block checksums")
	}
	out, err := decodeKafkaLZ4Frame(nil, std.Bytes(), false)
	if err != nil || !bytes.Equal(out, inner1) {
		t.Fatalf("standard frame: %v", err)
	}
	if out, err := decodeKafkaLZ4Frame(nil, std.Bytes(), true); err != nil || !bytes.Equal(out, inner1) {
		t.Fatalf("standard frame, HC ignored: %v", err)
	}
	// A flipped block checksum is caught.
	bad := bytes.Clone(std.Bytes())
	bad[len(bad)-9] ^= 1 // last byte of the block checksum before the end mark and content checksum
	if _, err := decodeKafkaLZ4Frame(nil, bad, false); err == nil {
		t.Fatal("block checksum mismatch accepted")
	}
	// Our own output is a standard frame for magic 1: pierrec reads it.
	ours, _ := appendCompressed(nil, LZ4, 1, bytes.Repeat(inner1, 2000))
	back, err := readAllLZ4(ours)
	if err != nil || !bytes.Equal(back, bytes.Repeat(inner1, 2000)) {
		t.Fatalf("pierrec reading our frame: %v", err)
	}
}

func readAllLZ4(b []byte) ([]byte, error) {
	var out bytes.Buffer
	_, err := out.ReadFrom(lz4.NewReader(bytes.NewReader(b)))
	return out.Bytes(), err
}

func TestLZ4FrameConstraints(t *testing.T) {
	good, _ := appendCompressed(nil, LZ4, 1, []byte("abcabcabcabcabcabcabc"))
	for _, tc := range []struct {
		name   string
		mutate func([]byte) []byte
	}{
		{"bad magic", func(b []byte) []byte { b[0] = 0; return b }},
		{"dependent blocks", func(b []byte) []byte { b[4] &^= lz4FLGBlockIndependence; return b }},
		{"version 2", func(b []byte) []byte { b[4] = b[4]&^lz4FLGVersionMask | 0x80; return b }},
		{"reserved BD bit", func(b []byte) []byte { b[5] |= 0x01; return b }},
		{"block size code 3", func(b []byte) []byte { b[5] = 3 << 4; return b }},
		{"no end mark", func(b []byte) []byte { return b[:len(b)-4] }},
		{"short header", func(b []byte) []byte { return b[:5] }},
		{"oversized block", func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[7:], 70000)
			return b
		}},
	} {
		if _, err := decodeKafkaLZ4Frame(nil, tc.mutate(bytes.Clone(good)), true); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}

func TestSnappyXerialAndRawBothRead(t *testing.T) {
	inner := buildSet(t, 1, NONE, CreateTime, 0, 0, sampleKVs(50, 0)).Bytes()
	xerial, _ := appendCompressed(nil, SNAPPY, 1, inner)
	if !bytes.Equal(xerial[:16], []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}) {
		t.Fatalf("xerial header % x", xerial[:16])
	}
	raw := snappy.Encode(nil, inner)
	// snappy-java-style small blocks (1 KiB, as Kafka 0.10.2's producer writes).
	small := append([]byte(nil), xerial[:16]...)
	for rest := inner; len(rest) > 0; {
		blk := rest[:min(1024, len(rest))]
		rest = rest[len(blk):]
		enc := snappy.Encode(nil, blk)
		small = binary.BigEndian.AppendUint32(small, uint32(len(enc)))
		small = append(small, enc...)
	}
	for name, payload := range map[string][]byte{"xerial": xerial, "raw": raw, "xerial 1KiB blocks": small} {
		got := collect(t, NewMemoryRecords(wrap(t, 1, SNAPPY, 49, payload)).DeepEntries())
		if len(got) != 50 || got[0].Offset != 0 || got[49].Offset != 49 {
			t.Fatalf("%s: %d entries", name, len(got))
		}
	}
	// A lying raw length header is refused without allocating it.
	liar := []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0x00}
	if _, err := decodeXerialSnappy(liar); err == nil {
		t.Fatal("lying snappy length accepted")
	}
	if _, err := decodeXerialSnappy(append(bytes.Clone(xerial[:16]), 0, 0, 0, 9, 1)); err == nil {
		t.Fatal("xerial block past the end accepted")
	}
}

func TestGzipReadsLikeJava(t *testing.T) {
	inner := buildSet(t, 1, NONE, CreateTime, 0, 0, sampleKVs(6, 0)).Bytes()
	member := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf) // the standard library's writer: a different encoder than ours
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	half := len(inner) / 2
	// Find an entry boundary so the two members each hold whole entries.
	for e := range NewMemoryRecords(inner).ShallowEntries() {
		if e.Position >= half {
			half = e.Position
			break
		}
	}
	two := append(member(inner[:half]), member(inner[half:])...)
	withJunk := append(bytes.Clone(member(inner)), "trailing junk"...)
	for name, payload := range map[string][]byte{"concatenated members": two, "trailing junk": withJunk} {
		got := collect(t, NewMemoryRecords(wrap(t, 1, GZIP, 5, payload)).DeepEntries())
		if len(got) != 6 {
			t.Fatalf("%s: %d entries", name, len(got))
		}
	}
}
