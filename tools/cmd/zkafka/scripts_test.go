package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinMatchesScriptTable checks that the committed bin/ wrappers are exactly what
// `zkafka gen-scripts` writes from the script table, and that no stray script is there.
func TestBinMatchesScriptTable(t *testing.T) {
	bin := filepath.Join("..", "..", "..", "bin")
	want := map[string]bool{}
	for _, s := range scriptTable {
		want[s.Name] = true
		got, err := os.ReadFile(filepath.Join(bin, s.Name))
		if err != nil {
			t.Errorf("bin/%s missing: %v (run `zkafka gen-scripts --out bin`)", s.Name, err)
			continue
		}
		if string(got) != wrapperScript(s) {
			t.Errorf("bin/%s differs from the script table", s.Name)
		}
	}
	entries, err := os.ReadDir(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sh") && !want[e.Name()] {
			t.Errorf("bin/%s is not in the script table", e.Name())
		}
	}
}

// TestEveryKafkaScriptHasARow checks the frozen list of Kafka 0.10.2 bin/ scripts against the table.
func TestEveryKafkaScriptHasARow(t *testing.T) {
	rows := map[string]Script{}
	for _, s := range scriptTable {
		if _, dup := rows[s.Name]; dup {
			t.Errorf("duplicate row %s", s.Name)
		}
		rows[s.Name] = s
		wantSub := strings.TrimSuffix(strings.TrimPrefix(s.Name, "kafka-"), ".sh")
		if s.Subcommand != wantSub {
			t.Errorf("%s: subcommand %q, want %q (script name without kafka- and .sh)", s.Name, s.Subcommand, wantSub)
		}
	}
	for _, name := range kafka0102BinScripts {
		if _, ok := rows[name]; !ok {
			t.Errorf("Kafka 0.10.2 script %s has no row", name)
		}
	}
}

func TestUnimplementedScriptSaysSoAndFails(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"zkafka", "connect-distributed", "config/connect-distributed.properties"}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "not implemented") {
		t.Fatalf("code=%d stderr=%q", code, errb.String())
	}
}

func TestRunClassUnknownClass(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"zkafka", "run-class", "kafka.tools.NoSuchTool"}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "Could not find or load main class kafka.tools.NoSuchTool") {
		t.Fatalf("code=%d stderr=%q", code, errb.String())
	}
}

// TestDumpLogSegmentsThroughRunClass: the book's command line reaches DumpLogSegments, and a
// usage error prints Kafka's message and exits 1.
func TestDumpLogSegmentsThroughRunClass(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"zkafka", "run-class", "kafka.tools.DumpLogSegments", "--print-data-log"}, &out, &errb)
	if code != 1 || !strings.HasPrefix(errb.String(), "Missing required argument \"[files]\"\n") {
		t.Fatalf("code=%d stderr=%q", code, errb.String())
	}
}

// TestZkOffsetsThroughRunClass: ExportZkOffsets, ImportZkOffsets, UpdateOffsetsInZK and
// VerifyConsumerRebalance have no script; the run-class line reaches them.
func TestZkOffsetsThroughRunClass(t *testing.T) {
	for class, usage := range map[string]string{
		"kafka.tools.ExportZkOffsets":         "Export consumer offsets to an output file.",
		"kafka.tools.ImportZkOffsets":         "Import offsets to zookeeper from files.",
		"kafka.tools.VerifyConsumerRebalance": "Validate that all partitions have a consumer for a given consumer group.",
	} {
		var out, errb bytes.Buffer
		code := run([]string{"zkafka", "run-class", class}, &out, &errb)
		if code != 1 || !strings.HasPrefix(errb.String(), usage+"\n") {
			t.Errorf("%s: code=%d stderr=%q", class, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"zkafka", "run-class", "kafka.tools.UpdateOffsetsInZK"}, &out, &errb); code != 1 ||
		out.String() != "USAGE: kafka.tools.UpdateOffsetsInZK$ [earliest | latest] consumer.properties topic\n" {
		t.Errorf("UpdateOffsetsInZK: code=%d stdout=%q", code, out.String())
	}
}

// A link named after a script runs that script's subcommand (the broker image has links, not
// shell wrappers); gen-scripts --links writes one per row, each pointing at zkafka beside it.
func TestScriptLinks(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"zkafka", "gen-scripts", "--links", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("gen-scripts --links: exit %d: %s", code, errb.String())
	}
	for _, s := range scriptTable {
		target, err := os.Readlink(filepath.Join(dir, s.Name))
		if err != nil || target != "zkafka" {
			t.Errorf("%s: link to %q (%v), want zkafka", s.Name, target, err)
		}
	}
	got := scriptArgs([]string{"/opt/zkafka/bin/kafka-topics.sh", "--zookeeper", "zk:2181", "--list"})
	want := []string{"/opt/zkafka/bin/kafka-topics.sh", "topics", "--zookeeper", "zk:2181", "--list"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("scriptArgs = %q, want %q", got, want)
	}
	if got := scriptArgs([]string{"zkafka", "topics"}); strings.Join(got, " ") != "zkafka topics" {
		t.Errorf("scriptArgs changed a plain invocation: %q", got)
	}
	// Through the link, an unimplemented script still says so and fails.
	out.Reset()
	errb.Reset()
	if code := run(scriptArgs([]string{filepath.Join(dir, "connect-distributed.sh"), "config/connect-distributed.properties"}), &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "not implemented") {
		t.Errorf("connect-distributed.sh through a link: exit %d, stderr %q", code, errb.String())
	}
}
