package record

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.NewReplacer(" ", "", "|", "").Replace(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// docs/formats.md §3.1 test vectors.
const (
	vectorV0 = "00 00 00 00 00 00 00 00 | 00 00 00 13 | 87 a7 7a b2 | 00 | 00 | ff ff ff ff | 00 00 00 05 68 65 6c 6c 6f"
	vectorV1 = "00 00 00 00 00 00 00 05 | 00 00 00 1c | 71 0d de bb | 01 | 00 | 00 00 01 5a 38 1b 56 00 | 00 00 00 01 6b | 00 00 00 05 68 65 6c 6c 6f"
)

func TestRecordCRCTestVectors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		want      string
		magic     int8
		offset    int64
		timestamp int64
		key       []byte
	}{
		{"v0", vectorV0, MagicValueV0, 0, NoTimestamp, nil},
		{"v1", vectorV1, MagicValueV1, 5, 1487000000000, []byte("k")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := unhex(t, tc.want)
			// Through the low-level writer.
			got := AppendLogEntryHeader(nil, tc.offset, RecordSize(tc.magic, tc.key, []byte("hello")))
			got, err := AppendRecord(got, tc.magic, tc.timestamp, tc.key, []byte("hello"), NONE, CreateTime)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("AppendRecord:\n got %x\nwant %x", got, want)
			}
			// Through the builder.
			b := NewMemoryRecordsBuilder(tc.magic, NONE, CreateTime, tc.offset, 0, 0)
			if _, err := b.Append(tc.timestamp, tc.key, []byte("hello")); err != nil {
				t.Fatal(err)
			}
			if got := b.Build().Bytes(); !bytes.Equal(got, want) {
				t.Fatalf("builder:\n got %x\nwant %x", got, want)
			}
			// And back.
			var n int
			for e, err := range NewMemoryRecords(want).ShallowEntries() {
				if err != nil {
					t.Fatal(err)
				}
				n++
				r := e.Record
				if e.Offset != tc.offset || r.Magic() != tc.magic || r.Attributes() != 0 ||
					r.Timestamp() != tc.timestamp || !bytes.Equal(r.Key(), tc.key) || (r.Key() == nil) != (tc.key == nil) ||
					string(r.Value()) != "hello" || !r.IsValid() || r.Checksum() != r.ComputeChecksum() {
					t.Fatalf("parsed %v offset %d", r, e.Offset)
				}
				if e.Size() != len(want) || r.SizeInBytes() != len(want)-LogOverhead {
					t.Fatalf("sizes %d %d", e.Size(), r.SizeInBytes())
				}
			}
			if n != 1 {
				t.Fatalf("%d entries", n)
			}
		})
	}
	if RecordOverheadV0 != 14 || RecordOverheadV1 != 22 || LogOverhead != 12 || KeySizeOffsetV1 != 14 || KeyOffsetV0 != 10 {
		t.Fatal("format constants")
	}
}

func TestRecordNullAndEmptyKeysAndValues(t *testing.T) {
	empty := []byte{}
	for _, magic := range []int8{MagicValueV0, MagicValueV1} {
		for _, tc := range []struct {
			name       string
			key, value []byte
		}{
			{"null/null", nil, nil},
			{"empty/empty", empty, empty},
			{"null/empty", nil, empty},
			{"key/null", []byte("key"), nil},
			{"empty/value", empty, []byte("v")},
		} {
			b, err := BuildRecord(magic, NoTimestamp, tc.key, tc.value, NONE, CreateTime)
			if err != nil {
				t.Fatal(err)
			}
			r := NewRecordFromBytes(b)
			if err := r.checkStructure(); err != nil {
				t.Fatalf("m%d %s: %v", magic, tc.name, err)
			}
			if r.HasKey() != (tc.key != nil) || (r.Key() == nil) != (tc.key == nil) || !bytes.Equal(r.Key(), tc.key) {
				t.Errorf("m%d %s: key %q hasKey %v", magic, tc.name, r.Key(), r.HasKey())
			}
			if r.HasNullValue() != (tc.value == nil) || (r.Value() == nil) != (tc.value == nil) || !bytes.Equal(r.Value(), tc.value) {
				t.Errorf("m%d %s: value %q", magic, tc.name, r.Value())
			}
			if len(b) != RecordSize(magic, tc.key, tc.value) || r.EnsureValid() != nil {
				t.Errorf("m%d %s: size %d", magic, tc.name, len(b))
			}
		}
	}
}

func TestRecordAttributes(t *testing.T) {
	for _, tc := range []struct {
		magic  int8
		codec  CompressionType
		tsType TimestampType
		want   int8
	}{
		{0, NONE, CreateTime, 0}, {0, GZIP, LogAppendTime, 1}, {0, LZ4, CreateTime, 3},
		{1, SNAPPY, CreateTime, 2}, {1, SNAPPY, LogAppendTime, 0x0a}, {1, NONE, LogAppendTime, 0x08},
	} {
		if got := ComputeAttributes(tc.magic, tc.codec, tc.tsType); got != tc.want {
			t.Errorf("ComputeAttributes(%d,%v,%v) = %#x, want %#x", tc.magic, tc.codec, tc.tsType, got, tc.want)
		}
		b, _ := BuildRecord(tc.magic, 7, nil, []byte("x"), tc.codec, tc.tsType)
		r := NewRecordFromBytes(b)
		wantType := tc.tsType
		wantTs := int64(7)
		if tc.magic == 0 {
			wantType, wantTs = NoTimestampType, NoTimestamp
		}
		if r.CompressionType() != tc.codec || r.TimestampType() != wantType || r.Timestamp() != wantTs {
			t.Errorf("%v: codec %v type %v ts %d", tc, r.CompressionType(), r.TimestampType(), r.Timestamp())
		}
	}
	// magic 0 ignores bit 3 even when set by someone else.
	b, _ := BuildRecord(0, NoTimestamp, nil, nil, NONE, CreateTime)
	b[AttributesOffset] |= 0x08
	if NewRecordFromBytes(b).TimestampType() != NoTimestampType {
		t.Error("magic 0 must report NoTimestampType")
	}
}

func TestRecordWriteRejectsBadArguments(t *testing.T) {
	if _, err := BuildRecord(2, 0, nil, nil, NONE, CreateTime); !errors.Is(err, ErrIllegalArgument) {
		t.Errorf("magic 2: %v", err)
	}
	if _, err := BuildRecord(1, -2, nil, nil, NONE, CreateTime); !errors.Is(err, ErrIllegalArgument) {
		t.Errorf("timestamp -2: %v", err)
	}
	if _, err := BuildRecord(1, NoTimestamp, nil, nil, NONE, CreateTime); err != nil {
		t.Errorf("timestamp -1: %v", err)
	}
}

func TestRecordEnsureValidDetectsCorruption(t *testing.T) {
	b := unhex(t, vectorV1)[LogOverhead:]
	for i := MagicOffset; i < len(b); i++ {
		c := bytes.Clone(b)
		c[i] ^= 0x40
		err := NewRecordFromBytes(c).EnsureValid()
		if !errors.Is(err, ErrInvalidRecord) || !errors.Is(err, ErrCorruptRecord) {
			t.Fatalf("flip at %d: %v", i, err)
		}
	}
	if err := NewRecordFromBytes(b[:3]).EnsureValid(); !errors.Is(err, ErrInvalidRecord) {
		t.Fatalf("short: %v", err)
	}
	// Accessors on garbage never panic.
	for n := 0; n <= len(b); n++ {
		r := NewRecordFromBytes(b[:n])
		_ = r.String()
		_, _, _ = r.Key(), r.Value(), r.Timestamp()
	}
}

func TestCompressionTypeNames(t *testing.T) {
	for id, name := range []string{"none", "gzip", "snappy", "lz4"} {
		c, err := ForName(name)
		if err != nil || int(c) != id || c.Name() != name || c.ID() != int8(id) {
			t.Errorf("ForName(%s) = %v, %v", name, c, err)
		}
		if c2, err := ForID(id); err != nil || c2 != c {
			t.Errorf("ForID(%d) = %v, %v", id, c2, err)
		}
	}
	for _, id := range []int{-1, 4, 7} {
		if _, err := ForID(id); !errors.Is(err, ErrIllegalArgument) {
			t.Errorf("ForID(%d): %v", id, err)
		}
	}
	if _, err := ForName("zstd"); err == nil {
		t.Error("zstd is not a 0.10.2 codec")
	}
	if CreateTime.Name() != "CreateTime" || LogAppendTime.Name() != "LogAppendTime" || NoTimestampType.Name() != "NoTimestampType" {
		t.Error("timestamp type names")
	}
}

func TestRecordConvert(t *testing.T) {
	b1, _ := BuildRecord(1, 1234, []byte("k"), []byte("v"), NONE, CreateTime)
	r0, err := NewRecordFromBytes(b1).Convert(0)
	if err != nil {
		t.Fatal(err)
	}
	if r0.Magic() != 0 || string(r0.Key()) != "k" || string(r0.Value()) != "v" || r0.Timestamp() != NoTimestamp || !r0.IsValid() {
		t.Fatalf("down-converted %v", r0)
	}
	r1, err := r0.Convert(1)
	if err != nil {
		t.Fatal(err)
	}
	if r1.Magic() != 1 || r1.Timestamp() != NoTimestamp || string(r1.Value()) != "v" || !r1.IsValid() {
		t.Fatalf("up-converted %v", r1)
	}
	w, _ := BuildRecord(1, 0, nil, []byte("zzz"), GZIP, CreateTime)
	if _, err := NewRecordFromBytes(w).Convert(0); !errors.Is(err, ErrIllegalArgument) {
		t.Fatalf("converting a wrapper: %v", err)
	}
}
