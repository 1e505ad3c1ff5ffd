package log

import (
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// msgSet builds an uncompressed v1 set with the values at offsets from, from+1, ... and
// timestamp ts (CreateTime) on every message.
func msgSet(t testing.TB, from, ts int64, values ...string) *record.MemoryRecords {
	t.Helper()
	return msgSetCodec(t, record.MagicValueV1, record.NONE, from, ts, values...)
}

func msgSetCodec(t testing.TB, magic int8, codec record.CompressionType, from, ts int64, values ...string) *record.MemoryRecords {
	t.Helper()
	b := record.NewMemoryRecordsBuilder(magic, codec, record.CreateTime, from, record.NoTimestamp, 0)
	for i, v := range values {
		if _, err := b.AppendWithOffset(from+int64(i), ts, nil, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

// keyedSet builds an uncompressed v1 set of key/value pairs starting at offset 0.
func keyedSet(t testing.TB, ts int64, kv ...string) *record.MemoryRecords {
	t.Helper()
	b := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, 0, record.NoTimestamp, 0)
	for i := 0; i+1 < len(kv); i += 2 {
		var k []byte
		if kv[i] != "" {
			k = []byte(kv[i])
		}
		if _, err := b.AppendWithOffset(int64(i/2), ts, k, []byte(kv[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

type entryView struct {
	offset int64
	value  string
	ts     int64
}

// deepEntries reads every message of a Records (memory or file slice).
func deepEntries(t testing.TB, rs record.Records) []entryView {
	t.Helper()
	var mr *record.MemoryRecords
	switch v := rs.(type) {
	case *record.MemoryRecords:
		mr = v
	case *record.FileRecords:
		buf := make([]byte, v.SizeInBytes())
		if _, err := v.ReadInto(buf, 0); err != nil {
			t.Fatal(err)
		}
		mr = record.NewMemoryRecords(buf)
	default:
		t.Fatalf("unexpected records type %T", rs)
	}
	var out []entryView
	for e, err := range mr.DeepEntries() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entryView{e.Offset, string(e.Record.Value()), e.Record.Timestamp()})
	}
	return out
}

func newTestSegment(t testing.TB, dir string, offset int64, tm common.Time) *LogSegment {
	t.Helper()
	seg, err := OpenLogSegment(dir, offset, 10, 1500, 0, tm, false, 0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return seg
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func listDir(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func logDir(t testing.TB) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "kafka-0")
	return d
}
