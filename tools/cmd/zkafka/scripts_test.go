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
	code := run([]string{"zkafka", "mirror-maker", "--whitelist", ".*"}, &out, &errb)
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

// TestZkOffsetsThroughRunClass: ExportZkOffsets and ImportZkOffsets have no script; the
// run-class line reaches them.
func TestZkOffsetsThroughRunClass(t *testing.T) {
	for class, usage := range map[string]string{
		"kafka.tools.ExportZkOffsets": "Export consumer offsets to an output file.",
		"kafka.tools.ImportZkOffsets": "Import offsets to zookeeper from files.",
	} {
		var out, errb bytes.Buffer
		code := run([]string{"zkafka", "run-class", class}, &out, &errb)
		if code != 1 || !strings.HasPrefix(errb.String(), usage+"\n") {
			t.Errorf("%s: code=%d stderr=%q", class, code, errb.String())
		}
	}
}
