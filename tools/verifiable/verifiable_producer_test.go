package verifiable

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/clientstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestVerifiableProducer(t *testing.T) {
	c := clientstest.NewMockCluster(t, 2)
	c.CreateTopic("vt", 2)
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"--topic", "vt", "--broker-list", c.Bootstrap(), "--max-messages", "20", "--acks", "1",
		"--value-prefix", "7"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 22 {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	seen := map[string]bool{}
	for _, l := range lines[:20] {
		if !strings.HasPrefix(l, `{"partition":`) || !strings.Contains(l, `"name":"producer_send_success","topic":"vt","value":"7.`) || !strings.HasSuffix(l, `"key":null}`) {
			t.Fatalf("success line %s", l)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		seen[m["value"].(string)] = true
	}
	if !seen["7.0"] || !seen["7.19"] || lines[20] != `{"name":"shutdown_complete"}` {
		t.Fatalf("values %v, line 21 %s", seen, lines[20])
	}
	var tool map[string]any
	if err := json.Unmarshal([]byte(lines[21]), &tool); err != nil || tool["name"] != "tool_data" || tool["sent"] != 20.0 || tool["acked"] != 20.0 ||
		tool["target_throughput"] != -1.0 || !strings.HasPrefix(lines[21], `{"avg_throughput":`) {
		t.Fatalf("tool_data %s %v", lines[21], err)
	}
	n := len(c.Records("vt", 0)) + len(c.Records("vt", 1))
	if n != 20 {
		t.Fatalf("%d records written", n)
	}
}

func TestVerifiableProducerErrors(t *testing.T) {
	c := clientstest.NewMockCluster(t, 1)
	var out, errOut bytes.Buffer
	cfg := t.TempDir() + "/p.properties"
	writeFile(t, cfg, "max.block.ms=200\n")
	if code := Run(context.Background(), []string{"--topic", "absent", "--broker-list", c.Bootstrap(), "--max-messages", "1", "--producer.config", cfg}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	if !strings.HasPrefix(first, `{"exception":"class org.apache.kafka.common.errors.TimeoutException","time_ms":`) ||
		!strings.HasSuffix(first, `"name":"producer_send_error","topic":"absent","message":"Failed to update metadata after 200 ms.","value":"0","key":null}`) {
		t.Fatalf("error line %s", first)
	}
	errOut.Reset()
	if code := Run(context.Background(), []string{"--topic", "t", "--broker-list", c.Bootstrap(), "--acks", "2"}, &out, &errOut); code != 1 ||
		!strings.HasSuffix(errOut.String(), "verifiable-producer: error: argument --acks: invalid choice: '2' (choose from {0, 1, -1})\n") {
		t.Fatalf("bad acks: %d %s", code, errOut.String())
	}
	for v, want := range map[float64]string{714.2857142857143: "714.2857142857143", 0: "0.0", 12: "12.0", 1.5e7: "1.5E7", 0.0001: "1.0E-4"} {
		if got := formatJavaDouble(v); got != want {
			t.Errorf("formatJavaDouble(%v) = %s, want %s", v, got, want)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
