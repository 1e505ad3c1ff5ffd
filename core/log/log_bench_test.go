package log

// Benchmarks (zkafka acceptance). Run them together so the ratios compare like with like:
//
//	go test -run=NONE -bench='LogAppend|RawFileWriteBaseline|SegmentReadSendfile|RawSendfileBaseline|LogRecovery' ./core/log/
//
// BenchmarkLogAppend / BenchmarkRawFileWriteBaseline: 100-byte messages (log overhead included) in
// 16 KiB batches through Log.Append (validation, offset assignment, index upkeep) against a plain
// bufio write of the same bytes to a file; both also report cpu-ns/op, the process CPU time per
// batch, which is the steadier figure on a shared machine. BenchmarkSegmentReadSendfile /
// BenchmarkRawSendfileBaseline: 1 MiB Log.Read slices sent to a loopback TCP socket with sendfile,
// against sendfile(2) of the same file ranges directly. BenchmarkLogRecovery: an unclean-shutdown open of a 64 MiB log (1 GiB with
// ZKAFKA_LONG=1), which re-validates every message and rebuilds every index.

import (
	"bufio"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/utils"
)

const (
	benchMessageSize = 100       // bytes on disk per message, log overhead included
	benchBatchSize   = 16 * 1024 // bytes per produce batch
)

// benchBatch is an uncompressed v1 set of 100-byte messages filling up to 16 KiB.
func benchBatch(b *testing.B) *record.MemoryRecords {
	valueLen := benchMessageSize - record.LogOverhead - record.RecordOverhead(record.MagicValueV1)
	value := []byte(strings.Repeat("v", valueLen))
	bld := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, 0, -1, 0)
	ts := common.SystemTime{}.Milliseconds()
	for i := 0; i < benchBatchSize/benchMessageSize; i++ {
		if _, err := bld.AppendWithOffset(int64(i), ts, nil, value); err != nil {
			b.Fatal(err)
		}
	}
	return bld.Build()
}

func BenchmarkLogAppend(b *testing.B) {
	batch := benchBatch(b)
	sched := utils.NewKafkaScheduler(1, nil)
	sched.Startup()
	defer sched.Shutdown()
	dir := filepath.Join(b.TempDir(), "bench-0")
	l, err := NewLog(dir, DefaultLogConfig(), 0, sched, common.SystemTime{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	b.SetBytes(int64(batch.SizeInBytes()))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPUTime(b)
	for b.Loop() {
		if _, err := l.Append(batch, true); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
	b.StopTimer()
	if l.LogEndOffset() == 0 {
		b.Fatal("nothing appended")
	}
}

func BenchmarkRawFileWriteBaseline(b *testing.B) {
	batch := benchBatch(b)
	f, err := os.Create(filepath.Join(b.TempDir(), "raw.log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f) // default 4 KiB buffer: each 16 KiB batch becomes one write(2), as in Log.Append
	b.SetBytes(int64(batch.SizeInBytes()))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPUTime(b)
	for b.Loop() {
		if _, err := w.Write(batch.Bytes()); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	cpu.report(b)
}

// cpuTime measures the process's CPU time (user + system) across a benchmark loop. On a shared
// machine wall time per op mostly measures the scheduler; CPU time per op ("cpu-ns/op") is what
// the two sides of a ratio actually cost, so both append benchmarks report it.
type cpuTime int64

func processCPUTime(b *testing.B) int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func startCPUTime(b *testing.B) cpuTime { return cpuTime(processCPUTime(b)) }

func (c cpuTime) report(b *testing.B) {
	if b.N > 0 {
		b.ReportMetric(float64(processCPUTime(b)-int64(c))/float64(b.N), "cpu-ns/op")
	}
}

// loopbackPair returns a connected client (to write to) and a goroutine draining the server side.
func loopbackPair(b *testing.B) (*net.TCPConn, func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c, err := ln.Accept()
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, c)
		c.Close()
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	return c.(*net.TCPConn), func() { c.Close(); ln.Close(); wg.Wait() }
}

const benchSliceSize = 1 << 20

// benchReadLog is a closed-and-reopened log of about 32 MiB of 100-byte messages.
func benchReadLog(b *testing.B) *Log {
	batch := benchBatch(b)
	tm := common.SystemTime{}
	sched := utils.NewMockScheduler(tm)
	dir := filepath.Join(b.TempDir(), "read-0")
	l, err := NewLog(dir, DefaultLogConfig(), 0, sched, tm, nil)
	if err != nil {
		b.Fatal(err)
	}
	for l.Size() < 32<<20 {
		if _, err := l.Append(batch, true); err != nil {
			b.Fatal(err)
		}
	}
	return l
}

func BenchmarkSegmentReadSendfile(b *testing.B) {
	l := benchReadLog(b)
	defer l.Close()
	conn, done := loopbackPair(b)
	defer done()
	msgsPerSlice := int64(benchSliceSize / benchMessageSize)
	next := int64(0)
	b.SetBytes(benchSliceSize)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if next+msgsPerSlice >= l.LogEndOffset() {
			next = 0
		}
		fd, err := l.Read(next, benchSliceSize, nil, false)
		if err != nil {
			b.Fatal(err)
		}
		n, err := fd.Records.WriteTo(conn)
		if err != nil || n != int64(fd.Records.SizeInBytes()) {
			b.Fatalf("wrote %d of %d: %v", n, fd.Records.SizeInBytes(), err)
		}
		next += msgsPerSlice
	}
}

func BenchmarkRawSendfileBaseline(b *testing.B) {
	l := benchReadLog(b)
	path := l.LogSegments()[0].Log().File()
	size := l.LogSegments()[0].Size()
	must(b, l.Close())
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	conn, done := loopbackPair(b)
	defer done()
	rc, err := conn.SyscallConn()
	if err != nil {
		b.Fatal(err)
	}
	pos := int64(0)
	b.SetBytes(benchSliceSize)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if pos+benchSliceSize > size {
			pos = 0
		}
		off, left := pos, benchSliceSize
		var serr error
		err := rc.Write(func(fd uintptr) bool {
			for left > 0 {
				n, err := unix.Sendfile(int(fd), int(f.Fd()), &off, left)
				if n > 0 {
					left -= n
				}
				if err == syscall.EAGAIN {
					return false
				}
				if err != nil {
					serr = err
					return true
				}
			}
			return true
		})
		if err != nil || serr != nil {
			b.Fatal(err, serr)
		}
		pos += benchSliceSize
	}
}

func BenchmarkLogRecovery(b *testing.B) {
	target := int64(64 << 20)
	if os.Getenv("ZKAFKA_LONG") == "1" {
		target = 1 << 30
	}
	batch := benchBatch(b)
	tm := common.SystemTime{}
	dir := filepath.Join(b.TempDir(), "recover-0")
	p := props(SegmentBytesProp, "16777216")
	cfg, err := NewLogConfig(p)
	if err != nil {
		b.Fatal(err)
	}
	l, err := NewLog(dir, cfg, 0, utils.NewMockScheduler(tm), tm, nil)
	if err != nil {
		b.Fatal(err)
	}
	for l.Size() < target {
		if _, err := l.Append(batch, true); err != nil {
			b.Fatal(err)
		}
	}
	leo := l.LogEndOffset()
	must(b, l.Close())
	b.SetBytes(target)
	b.ResetTimer()
	for b.Loop() {
		// No .kafka_cleanshutdown and recovery point 0: every segment is re-read and re-indexed.
		rl, err := NewLog(dir, cfg, 0, utils.NewMockScheduler(tm), tm, nil)
		if err != nil {
			b.Fatal(err)
		}
		if rl.LogEndOffset() != leo {
			b.Fatalf("recovered LEO %d, want %d", rl.LogEndOffset(), leo)
		}
		_ = rl.Close()
	}
}
