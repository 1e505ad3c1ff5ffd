package record

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchKVs returns ~1 MiB of uncompressed messages: 1 KiB values of semi-compressible text.
func benchKVs() []kv {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"kafka", "broker", "segment", "offset", "replica", "leader", "zookeeper", "fetch"}
	var out []kv
	for i := 0; i < 1000; i++ {
		v := make([]byte, 0, 1024)
		for len(v) < 1000 {
			v = append(v, words[rng.IntN(len(words))]...)
			v = append(v, ' ')
			v = fmt.Appendf(v, "%d ", rng.IntN(100000))
		}
		out = append(out, kv{offset: int64(i), timestamp: 1487000000000 + int64(i), key: fmt.Appendf(nil, "key-%d", i), value: v[:1000]})
	}
	return out
}

func uncompressedSize(kvs []kv) int64 {
	n := 0
	for _, m := range kvs {
		n += LogOverhead + RecordSize(1, m.key, m.value)
	}
	return int64(n)
}

func BenchmarkMemoryRecordsDeep(b *testing.B) {
	kvs := benchKVs()
	for _, codec := range []CompressionType{GZIP, SNAPPY, LZ4} {
		m := buildSet(b, 1, codec, CreateTime, 0, 0, kvs)
		b.Run(codec.Name(), func(b *testing.B) {
			b.SetBytes(uncompressedSize(kvs))
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				for e, err := range m.DeepEntries() {
					if err != nil {
						b.Fatal(err)
					}
					n += len(e.Record.Value())
				}
				if n != 1000*1000 {
					b.Fatal(n)
				}
			}
			b.ReportMetric(float64(m.SizeInBytes())/float64(uncompressedSize(kvs)), "ratio")
		})
	}
}

func BenchmarkMemoryRecordsBuilder(b *testing.B) {
	kvs := benchKVs()
	for _, codec := range []CompressionType{NONE, GZIP, SNAPPY, LZ4} {
		b.Run(codec.Name(), func(b *testing.B) {
			b.SetBytes(uncompressedSize(kvs))
			b.ReportAllocs()
			for b.Loop() {
				buildSet(b, 1, codec, CreateTime, 0, 0, kvs)
			}
		})
	}
}
