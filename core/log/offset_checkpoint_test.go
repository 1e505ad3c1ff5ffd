package log

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
)

// Golden bytes of a checkpoint file, as 0.10.2's OffsetCheckpoint.write produces them
// (version line, count line, "topic partition offset" lines, each ended by '\n').
const checkpointGolden = "0\n3\n" +
	"__consumer_offsets 7 1234\n" +
	"my-topic 0 0\n" +
	"my-topic 12 9223372036854775807\n"

func TestOffsetCheckpointGoldenBytes(t *testing.T) {
	for _, name := range []string{RecoveryPointCheckpointFile, ReplicationOffsetCheckpointFile, CleanerOffsetCheckpointFile} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			cp, err := NewOffsetCheckpoint(path)
			if err != nil {
				t.Fatal(err)
			}
			offsets := map[common.TopicPartition]int64{
				{Topic: "my-topic", Partition: 12}:          9223372036854775807,
				{Topic: "__consumer_offsets", Partition: 7}: 1234,
				{Topic: "my-topic", Partition: 0}:           0,
			}
			if err := cp.Write(offsets); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != checkpointGolden {
				t.Fatalf("file content:\n%q\nwant\n%q", got, checkpointGolden)
			}
			if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
				t.Fatalf("tmp file left behind: %v", err)
			}
			back, err := cp.Read()
			if err != nil {
				t.Fatal(err)
			}
			if len(back) != len(offsets) {
				t.Fatalf("read back %v", back)
			}
			for tp, o := range offsets {
				if back[tp] != o {
					t.Fatalf("read back %v want %v", back, offsets)
				}
			}
		})
	}
}

func TestOffsetCheckpointEmpty(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, RecoveryPointCheckpointFile)
	cp, err := NewOffsetCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Fatalf("constructor must create an empty file: %v", err)
	}
	m, err := cp.Read()
	if err != nil || len(m) != 0 {
		t.Fatalf("empty file: %v %v", m, err)
	}
	if err := cp.Write(nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "0\n0\n" {
		t.Fatalf("empty checkpoint bytes %q", b)
	}
}

func TestParseOffsetCheckpoint(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    map[common.TopicPartition]int64
		wantErr string
	}{
		{name: "only version", in: "0\n", want: map[common.TopicPartition]int64{}},
		{name: "no trailing newline", in: "0\n1\nt 0 5", want: map[common.TopicPartition]int64{{Topic: "t"}: 5}},
		{name: "crlf and tabs", in: "0\r\n1\r\nt\t3  9\r\n", want: map[common.TopicPartition]int64{{Topic: "t", Partition: 3}: 9}},
		{name: "bad version", in: "1\n0\n", wantErr: "Unrecognized version of the highwatermark checkpoint file: 1"},
		{name: "non-numeric version", in: "x\n", wantErr: "Malformed line in offset checkpoint file: x'"},
		{name: "bad count", in: "0\nz\n", wantErr: "Malformed line in offset checkpoint file: z'"},
		{name: "two fields", in: "0\n1\nt 0\n", wantErr: "Malformed line in offset checkpoint file: t 0'"},
		{name: "leading space", in: "0\n1\n t 0 1\n", wantErr: "Malformed line in offset checkpoint file:  t 0 1'"},
		{name: "bad partition", in: "0\n1\nt p 1\n", wantErr: "Malformed line in offset checkpoint file: t p 1'"},
		{name: "bad offset", in: "0\n1\nt 0 1.5\n", wantErr: "Malformed line in offset checkpoint file: t 0 1.5'"},
		{name: "count mismatch", in: "0\n2\nt 0 1\n", wantErr: "Expected 2 entries but found only 1"},
		{name: "duplicate entry", in: "0\n2\nt 0 1\nt 0 2\n", wantErr: "Expected 2 entries but found only 1"},
		{name: "empty line", in: "0\n1\n\n", wantErr: "Malformed line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseOffsetCheckpoint(strings.NewReader(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrMalformedCheckpoint) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Fatalf("got %v want %v", got, tc.want)
				}
			}
		})
	}
}

func FuzzParseOffsetCheckpoint(f *testing.F) {
	f.Add(checkpointGolden)
	f.Add("0\n1\nt 0 1\n")
	f.Add("0\r\n\r\n")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseOffsetCheckpoint(strings.NewReader(s))
		if err != nil {
			return
		}
		// Whatever parses must survive a write/parse round trip.
		back, err := ParseOffsetCheckpoint(strings.NewReader(string(FormatOffsetCheckpoint(m))))
		if err != nil || len(back) != len(m) {
			t.Fatalf("round trip of %v: %v %v", m, back, err)
		}
	})
}
