package log

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/utils"
)

// BenchmarkCleanerClean compacts a 4 MiB log of 100-byte values over 1000 keys (every key
// rewritten many times) with a real SkimpyOffsetMap; MB/s is of log bytes read.
func BenchmarkCleanerClean(b *testing.B) {
	value := make([]byte, 100)
	var bytesRead int64
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		tm := common.NewMockTime(time.Now().UnixMilli())
		cfg, err := NewLogConfig(map[string]string{SegmentBytesProp: strconv.Itoa(512 << 10), CleanupPolicyProp: Compact})
		if err != nil {
			b.Fatal(err)
		}
		l, err := NewLog(filepath.Join(b.TempDir(), "bench-0"), cfg, 0, utils.NewMockScheduler(tm), tm, nil)
		if err != nil {
			b.Fatal(err)
		}
		for n := 0; l.Size() < 4<<20; n++ {
			mustAppend(b, l, keyedRecord(b, n%1000, value), true)
		}
		m, err := NewSkimpyOffsetMap(1<<20, "MD5")
		if err != nil {
			b.Fatal(err)
		}
		c, err := NewCleaner(0, m, 256<<10, 1<<20, 0.9, tm, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		_, stats, err := c.clean(NewLogToClean(cleanerTestTP, l, 0, l.ActiveSegment().BaseOffset()))
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		bytesRead += stats.BytesRead
		_ = l.Close()
		b.StartTimer()
	}
	b.SetBytes(bytesRead / int64(b.N))
}
