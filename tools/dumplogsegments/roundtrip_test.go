package dumplogsegments

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
	kafkalog "github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/utils"
)

// TestDumpRoundTripOnZkafkaLog dumps segments written by core/log (plain, gzip, snappy and
// lz4 batches, several segments, sparse indexes) and checks the tool finds every message in
// order and no index or time-index problem.
func TestDumpRoundTripOnZkafkaLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rt-0")
	tm := common.NewMockTime(1490000000000)
	cfg, err := kafkalog.NewLogConfig(map[string]string{"segment.bytes": "4096", "index.interval.bytes": "200"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := kafkalog.NewLog(dir, cfg, 0, utils.NewMockScheduler(tm), tm, nil)
	if err != nil {
		t.Fatal(err)
	}
	codecs := []record.CompressionType{record.NONE, record.GZIP, record.SNAPPY, record.LZ4}
	n := 0
	for batch := 0; batch < 40; batch++ {
		b := record.NewMemoryRecordsBuilder(1, codecs[batch%len(codecs)], record.CreateTime, 0, 0, 0)
		for i := 0; i < 5; i++ {
			if _, err := b.Append(tm.Milliseconds()+int64(n), []byte(fmt.Sprintf("k%d", n%7)), []byte(fmt.Sprintf("value-%d", n))); err != nil {
				t.Fatal(err)
			}
			n++
		}
		if _, err := l.Append(b.Build(), true); err != nil {
			t.Fatal(err)
		}
	}
	if l.NumberOfSegments() < 2 {
		t.Fatalf("only %d segments", l.NumberOfSegments())
	}
	var files []string
	for _, s := range l.LogSegments() {
		files = append(files, s.Log().File(), s.Index().File(), s.TimeIndex().File())
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	opts, err := ParseArgs([]string{"--files", strings.Join(files, ","), "--deep-iteration", "--print-data-log"})
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	opts.Stderr = &errOut
	if err := Run(context.Background(), opts, &out); err != nil {
		t.Fatal(err)
	}
	if errOut.Len() != 0 {
		t.Fatalf("verification problems:\n%s", errOut.String())
	}
	next := 0
	indexLines := 0
	for _, line := range strings.Split(out.String(), "\n") {
		switch {
		case strings.HasPrefix(line, "offset: ") && strings.Contains(line, " payload: "):
			want := fmt.Sprintf("offset: %d ", next)
			if !strings.HasPrefix(line, want) || !strings.HasSuffix(line, fmt.Sprintf(" key: k%d payload: value-%d", next%7, next)) ||
				!strings.Contains(line, "isvalid: true") || !strings.Contains(line, " compresscodec: NONE ") {
				t.Fatalf("line %q, want message %d", line, next)
			}
			next++
		case strings.HasPrefix(line, "offset: ") || strings.HasPrefix(line, "timestamp: "):
			indexLines++
		}
	}
	if next != n {
		t.Fatalf("dumped %d messages, wrote %d", next, n)
	}
	if indexLines == 0 {
		t.Fatal("no index entries dumped")
	}
	// Shallow dump names each batch's codec.
	opts.DeepIteration, opts.PrintDataLog = false, false
	out.Reset()
	if err := Run(context.Background(), opts, &out); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"NONE", "GZIP", "SNAPPY", "LZ4"} {
		if !strings.Contains(out.String(), " compresscodec: "+c+" ") {
			t.Fatalf("no %s batch in the shallow dump", c)
		}
	}
}

// FuzzDumpLog feeds arbitrary bytes as a segment: the tool may report errors but must not panic.
func FuzzDumpLog(f *testing.F) {
	msg, _ := record.BuildRecord(1, 5, []byte("k"), []byte("v"), record.NONE, record.CreateTime)
	seed := append(record.AppendLogEntryHeader(nil, 0, len(msg)), msg...)
	f.Add(seed)
	b := record.NewMemoryRecordsBuilder(1, record.GZIP, record.LogAppendTime, 3, 99, 0)
	_, _ = b.Append(1, nil, []byte("x"))
	_, _ = b.Append(2, []byte("k"), nil)
	f.Add(append(seed, b.Build().Bytes()...))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "00000000000000000000.log")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.index"), data[:len(data)/8*8], 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"--files", p, "--deep-iteration", "--print-data-log"},
			{"--files", p, "--offsets-decoder", "--deep-iteration"},
			{"--files", filepath.Join(dir, "00000000000000000000.index")},
		} {
			opts, err := ParseArgs(args)
			if err != nil {
				t.Fatal(err)
			}
			opts.Stderr = &bytes.Buffer{}
			_ = Run(context.Background(), opts, &bytes.Buffer{})
		}
	})
}
