package serverstart

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/zk/zktest"
)

func TestMain(m *testing.M) { os.Exit(zktest.Main(m, 1, goleak.IgnoreCurrent())) }

func TestUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Run(nil, &out, &errb); code != 1 || strings.TrimSpace(out.String()) != Usage {
		t.Fatalf("no args: exit %d, stdout %q", code, out.String())
	}
	props := filepath.Join(t.TempDir(), "server.properties")
	if err := os.WriteFile(props, []byte("broker.id=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	code := run([]string{props, "a", "--override", "x=y", "b"}, &out, &errb, os.Getenv, nil)
	if code != 1 || !strings.HasPrefix(errb.String(), "Found non argument parameters: a,b\n") {
		t.Fatalf("non-option args: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{props, "--override", "a=b=c"}, &out, &errb, os.Getenv, nil); code != 1 ||
		!strings.Contains(out.String(), "Invalid command line properties: a=b=c") {
		t.Fatalf("bad override: exit %d, stdout %q", code, out.String())
	}
	out.Reset()
	// Missing zookeeper.connect: the config error is fatal.
	if code := run([]string{props}, &out, &errb, os.Getenv, nil); code != 1 || !strings.Contains(out.String(), "zookeeper.connect") {
		t.Fatalf("bad config: exit %d, stdout %q", code, out.String())
	}
}

// TestBadConfigIsFatal: a value of the wrong type, out of range, or failing a cross-key check
// stops startup as kafka.Kafka does: a FATAL line without a message, the exception on the next
// line, exit 1.
func TestBadConfigIsFatal(t *testing.T) {
	cases := []struct{ props, exception string }{
		{"broker.id=abc", "org.apache.kafka.common.config.ConfigException: Invalid value abc for configuration broker.id: Not a number of type INT"},
		{"num.io.threads=0", "org.apache.kafka.common.config.ConfigException: Invalid value 0 for configuration num.io.threads: Value must be at least 1"},
		{"log.cleaner.enable=yes", "org.apache.kafka.common.config.ConfigException: Invalid value yes for configuration log.cleaner.enable: Expected value to be either true or false"},
		{"compression.type=none", "java.lang.IllegalArgumentException: requirement failed: compression.type : none is not valid. Valid options are uncompressed,snappy,lz4,gzip,producer"},
	}
	fatal := regexp.MustCompile(`(?m)^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] FATAL  \(kafka\.Kafka\$\)\n(.*)\n`)
	for _, c := range cases {
		props := filepath.Join(t.TempDir(), "server.properties")
		if err := os.WriteFile(props, []byte("zookeeper.connect=localhost:1\n"+c.props+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := run([]string{props}, &out, &errb, os.Getenv, nil)
		m := fatal.FindStringSubmatch(out.String())
		if code != 1 || m == nil || m[1] != c.exception {
			t.Errorf("%s: exit %d, output\n%s\nwant the FATAL line and %q", c.props, code, out.String(), c.exception)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{filepath.Join(t.TempDir(), "missing.properties")}, &out, &errb, os.Getenv, nil); code != 1 ||
		!strings.Contains(out.String(), "FATAL  (kafka.Kafka$)\njava.io.FileNotFoundException: ") {
		t.Errorf("missing file: exit %d, output %q", code, out.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the broker's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestStartAndStop: server.properties plus overrides start a broker, which a stop (SIGTERM in
// the real process) shuts down cleanly with exit 0.
func TestStartAndStop(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "server.properties")
	content := fmt.Sprintf("broker.id=3\nlisteners=PLAINTEXT://127.0.0.1:9092\nlog.dirs=%s\nzookeeper.connect=%s\nlog.cleaner.dedupe.buffer.size=4194304\nno.such.key=1\n",
		filepath.Join(dir, "data"), zktest.Chroot(t))
	if err := os.WriteFile(props, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	stop := make(chan struct{})
	done := make(chan int)
	go func() {
		done <- run([]string{props, "--override", "listeners=PLAINTEXT://127.0.0.1:0", "--override=num.io.threads=1"}, out, out, os.Getenv, stop)
	}()
	zktest.WaitUntilTrue(t, func() bool {
		return strings.Contains(out.String(), "[Kafka Server 3], started (kafka.server.KafkaServer)")
	},
		"broker started", 30*time.Second)
	if !strings.Contains(out.String(), "num.io.threads = 1") {
		t.Error("override not applied")
	}
	if !strings.Contains(out.String(), "] WARN The configuration 'no.such.key' was supplied but isn't a known config. (kafka.server.KafkaConfig)\n") {
		t.Error("the unknown key is not reported")
	}
	close(stop)
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no shutdown")
	}
	if !strings.Contains(out.String(), "[Kafka Server 3], shut down completed") {
		t.Fatalf("no shutdown line in\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "data", ".kafka_cleanshutdown")); err != nil {
		t.Fatal(err)
	}
}
