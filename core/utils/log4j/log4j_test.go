package log4j

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// shippedConfig is the repository's config/log4j.properties with kafka.logs.dir set to dir.
func shippedConfig(t *testing.T, dir string) *Config {
	t.Helper()
	cfg, err := LoadConfig(filepath.Join("..", "..", "..", "config", "log4j.properties"), map[string]string{"kafka.logs.dir": dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) > 0 {
		t.Fatalf("warnings: %v", cfg.Warnings)
	}
	return cfg
}

var lineLayout = regexp.MustCompile(`^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) .* \([^ ]+\)$`)

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// TestShippedConfigRoutesLikeKafka: with the shipped file every logger reaches the files (and the
// console) Kafka 0.10.2's config/log4j.properties sends it to, at its levels, in Kafka's layout.
func TestShippedConfigRoutesLikeKafka(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	r := NewRepository(shippedConfig(t, dir), &stdout, &stderr, nil)
	defer r.Close()
	l := r.Loggers("kafka", "state.change.logger", "kafka.request.logger", "kafka.controller")
	for _, f := range []string{"server.log", "state-change.log", "kafka-request.log", "log-cleaner.log", "controller.log", "kafka-authorizer.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not created at startup: %v", f, err)
		}
	}
	kafka := l["kafka"]
	kafka.WithField(LoggerField, "kafka.server.KafkaServer").WithField(IdentField, "[Kafka Server 1], ").Info("started")
	kafka.WithField(LoggerField, "kafka.server.KafkaServer").Debug("not logged: kafka is at INFO")
	kafka.WithField(LoggerField, "kafka.log.LogCleaner").Info("cleaner line")
	kafka.WithField(LoggerField, "kafka.network.RequestChannel$").Warn("request channel warning")
	kafka.WithField(LoggerField, "kafka.authorizer.logger").Info("not logged: authorizer at WARN")
	kafka.WithField(LoggerField, "org.I0Itec.zkclient.ZkClient").Info("zk client line")
	l["kafka.controller"].WithField(LoggerField, "kafka.controller.KafkaController").Trace("controller trace")
	l["state.change.logger"].Trace("state change trace")
	l["kafka.request.logger"].Debug("not logged: request logger at WARN")
	l["kafka.request.logger"].WithField("extra", 7).Warn("slow request")

	want := map[string][]string{
		"server.log":           {"INFO [Kafka Server 1], started (kafka.server.KafkaServer)"},
		"log-cleaner.log":      {"INFO cleaner line (kafka.log.LogCleaner)"},
		"kafka-request.log":    {"WARN request channel warning (kafka.network.RequestChannel$)", "WARN slow request extra=7 (kafka.request.logger)"},
		"controller.log":       {"TRACE controller trace (kafka.controller.KafkaController)"},
		"state-change.log":     {"TRACE state change trace (state.change.logger)"},
		"kafka-authorizer.log": nil,
	}
	for f, lines := range want {
		got := readLines(t, filepath.Join(dir, f))
		if len(got) != len(lines) {
			t.Errorf("%s: %q, want %q", f, got, lines)
			continue
		}
		for i := range got {
			if !lineLayout.MatchString(got[i]) || !strings.HasSuffix(got[i], "] "+lines[i]) {
				t.Errorf("%s line %d: %q, want [date] %s", f, i, got[i], lines[i])
			}
		}
	}
	console := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(console) != 2 || !strings.HasSuffix(console[0], "] INFO [Kafka Server 1], started (kafka.server.KafkaServer)") ||
		!strings.HasSuffix(console[1], "] INFO zk client line (org.I0Itec.zkclient.ZkClient)") {
		t.Errorf("console (kafka and root, not the separate loggers):\n%s", stdout.String())
	}
	// The separate loggers' logrus levels: kafka stays at INFO although kafka.controller is TRACE.
	if l["kafka"].Logger.GetLevel() != logrus.InfoLevel || l["kafka.controller"].Logger.GetLevel() != logrus.TraceLevel ||
		l["state.change.logger"].Logger.GetLevel() != logrus.TraceLevel || l["kafka.request.logger"].Logger.GetLevel() != logrus.WarnLevel {
		t.Errorf("logrus levels: kafka %v controller %v state %v request %v", l["kafka"].Logger.GetLevel(),
			l["kafka.controller"].Logger.GetLevel(), l["state.change.logger"].Logger.GetLevel(), l["kafka.request.logger"].Logger.GetLevel())
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// TestThrowableOnNextLine: an exception follows its line, as log4j prints a throwable.
func TestThrowableOnNextLine(t *testing.T) {
	var out bytes.Buffer
	r := NewRepository(DefaultConsoleConfig(), &out, &out, nil)
	l := r.Loggers("kafka")["kafka"]
	l.WithField(LoggerField, "kafka.Kafka$").WithField(ThrowableField, "java.lang.IllegalArgumentException: boom").Fatal("")
	if !regexp.MustCompile(`^\[[^]]+\] FATAL  \(kafka\.Kafka\$\)\njava\.lang\.IllegalArgumentException: boom\n$`).MatchString(out.String()) {
		t.Fatalf("got %q", out.String())
	}
}

type mockClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *mockClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *mockClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestDailyRollingHourly: with DatePattern '.'yyyy-MM-dd-HH the file is renamed to
// <file>.<its hour> at the first line of a new hour, and a new file is started.
func TestDailyRollingHourly(t *testing.T) {
	dir := t.TempDir()
	clock := &mockClock{t: time.Date(2017, 3, 1, 10, 59, 0, 0, time.Local)}
	cfg := ParseConfig(map[string]string{
		"log4j.rootLogger":                          "INFO, f",
		"log4j.appender.f":                          "org.apache.log4j.DailyRollingFileAppender",
		"log4j.appender.f.DatePattern":              "'.'yyyy-MM-dd-HH",
		"log4j.appender.f.File":                     "${kafka.logs.dir}/server.log",
		"log4j.appender.f.layout":                   "org.apache.log4j.PatternLayout",
		"log4j.appender.f.layout.ConversionPattern": "%p %m%n",
	}, map[string]string{"kafka.logs.dir": dir})
	var console bytes.Buffer
	r := NewRepository(cfg, &console, &console, clock.now)
	defer r.Close()
	l := r.Loggers("kafka")["kafka"]
	l.Info("first")
	clock.add(2 * time.Minute) // 11:01
	l.Info("second")
	clock.add(30 * time.Minute)
	l.Info("third")
	if got := readLines(t, filepath.Join(dir, "server.log.2017-03-01-10")); strings.Join(got, "|") != "INFO first" {
		t.Errorf("rolled file %q", got)
	}
	if got := readLines(t, filepath.Join(dir, "server.log")); strings.Join(got, "|") != "INFO second|INFO third" {
		t.Errorf("current file %q", got)
	}
}

func TestRollingFileBySize(t *testing.T) {
	dir := t.TempDir()
	cfg := ParseConfig(map[string]string{
		"log4j.rootLogger":                          "INFO, f",
		"log4j.appender.f":                          "org.apache.log4j.RollingFileAppender",
		"log4j.appender.f.File":                     dir + "/x.log",
		"log4j.appender.f.MaxFileSize":              "10",
		"log4j.appender.f.MaxBackupIndex":           "2",
		"log4j.appender.f.layout":                   "org.apache.log4j.PatternLayout",
		"log4j.appender.f.layout.ConversionPattern": "%m%n",
	}, nil)
	r := NewRepository(cfg, os.Stdout, os.Stderr, nil)
	defer r.Close()
	l := r.Loggers("kafka")["kafka"]
	for _, m := range []string{"aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc", "dddd"} {
		l.Info(m)
	}
	for f, want := range map[string]string{"x.log": "dddd", "x.log.1": "cccccccccc", "x.log.2": "bbbbbbbbbb"} {
		if got := strings.Join(readLines(t, filepath.Join(dir, f)), "|"); got != want {
			t.Errorf("%s = %q, want %q", f, got, want)
		}
	}
}

func TestPatternLayout(t *testing.T) {
	e := &Event{Time: time.Date(2017, 3, 1, 9, 5, 7, 42e6, time.UTC), Level: WARN, Logger: "kafka.server.ReplicaManager", Message: "m"}
	cases := map[string]string{
		"[%d] %p %m (%c)%n":             "[2017-03-01 09:05:07,042] WARN m (kafka.server.ReplicaManager)\n",
		"%d{ABSOLUTE} %-5p|%5p|%c{1}%%": "09:05:07,042 WARN | WARN|ReplicaManager%",
		"%d{yyyy/MM/dd 'at' HH}|%.6c":   "2017/03/01 at 09|anager",
		"%d{DATE} %t %L":                "01 Mar 2017 09:05:07,042 main ?",
	}
	for pattern, want := range cases {
		if got := NewPatternLayout(pattern).Format(e); got != want {
			t.Errorf("%q: %q, want %q", pattern, got, want)
		}
	}
}

func TestParseConfigInheritanceAndWarnings(t *testing.T) {
	cfg := ParseConfig(map[string]string{
		"log4j.rootLogger":         "WARN, a",
		"log4j.appender.a":         "org.apache.log4j.ConsoleAppender",
		"log4j.logger.kafka":       "DEBUG",
		"log4j.logger.kafka.x":     "INHERITED, missing",
		"log4j.additivity.kafka.x": "false",
	}, nil)
	r := &Repository{cfg: cfg, routes: map[string]*route{}}
	if r.EffectiveLevel("kafka.x.y") != DEBUG || r.EffectiveLevel("other") != WARN || cfg.Loggers["kafka.x"].Additivity {
		t.Errorf("levels: kafka.x.y %v other %v", r.EffectiveLevel("kafka.x.y"), r.EffectiveLevel("other"))
	}
	if len(cfg.Warnings) != 2 || !strings.Contains(cfg.Warnings[1], `Could not instantiate appender named "missing"`) {
		t.Errorf("warnings %q", cfg.Warnings)
	}
	var stderr bytes.Buffer
	NewRepository(ParseConfig(map[string]string{"log4j.rootLogger": "INFO, s", "log4j.appender.s": "org.apache.log4j.net.SyslogAppender"}, nil),
		&stderr, &stderr, nil)
	if !strings.Contains(stderr.String(), "log4j:ERROR Could not instantiate class [org.apache.log4j.net.SyslogAppender].") {
		t.Errorf("unknown class: %q", stderr.String())
	}
}

// TestServerEnvironment: LOG_DIR and KAFKA_LOG4J_OPTS as kafka-run-class.sh and
// kafka-server-start.sh resolve them.
func TestServerEnvironment(t *testing.T) {
	base := t.TempDir()
	env, err := ServerEnvironment(base, func(string) string { return "" })
	if err != nil || env.LogDir != filepath.Join(base, "logs") || env.ConfigFile != filepath.Join(base, "config", "log4j.properties") ||
		env.SysProps["kafka.logs.dir"] != env.LogDir {
		t.Fatalf("defaults: %+v %v", env, err)
	}
	if fi, err := os.Stat(env.LogDir); err != nil || !fi.IsDir() {
		t.Errorf("LOG_DIR not created: %v", err)
	}
	vars := map[string]string{"LOG_DIR": filepath.Join(base, "elsewhere"), "KAFKA_LOG4J_OPTS": "-Dlog4j.configuration=file:/etc/k/log4j.properties -Dx=y"}
	env, err = ServerEnvironment(base, func(k string) string { return vars[k] })
	if err != nil || env.LogDir != vars["LOG_DIR"] || env.ConfigFile != "/etc/k/log4j.properties" || env.SysProps["x"] != "y" ||
		env.SysProps["kafka.logs.dir"] != vars["LOG_DIR"] {
		t.Fatalf("overrides: %+v %v", env, err)
	}
	var out, errOut bytes.Buffer
	r := Configure(env, &out, &errOut, nil)
	r.Loggers("kafka")["kafka"].Info("still on the console")
	if !strings.Contains(errOut.String(), "log4j:ERROR Could not read configuration file from URL [file:/etc/k/log4j.properties].") ||
		!strings.Contains(out.String(), "] INFO still on the console (kafka)") {
		t.Errorf("missing file: stderr %q stdout %q", errOut.String(), out.String())
	}
}

// TestMissingDefaultConfigIsQuiet: a binary installed without its config/ directory logs to the
// console without log4j's error lines (it was not told where the file is).
func TestMissingDefaultConfigIsQuiet(t *testing.T) {
	env, err := ServerEnvironment(t.TempDir(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	Configure(env, &out, &errOut, nil).Loggers("kafka")["kafka"].Info("on the console")
	if errOut.Len() != 0 || !strings.Contains(out.String(), "INFO on the console (kafka)") {
		t.Errorf("stderr %q stdout %q", errOut.String(), out.String())
	}
}

// TestConcurrentLoggers: loggers used from many goroutines (as the broker's threads do) write
// whole lines, none lost.
func TestConcurrentLoggers(t *testing.T) {
	dir := t.TempDir()
	var stdout bytes.Buffer
	var mu sync.Mutex
	r := NewRepository(shippedConfig(t, dir), writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return stdout.Write(p)
	}), os.Stderr, nil)
	l := r.Loggers("kafka", "state.change.logger")
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				l["kafka"].WithField(LoggerField, "kafka.server.ReplicaManager").Infof("line %d of %d", i, g)
				l["state.change.logger"].Tracef("change %d of %d", i, g)
			}
		}()
	}
	wg.Wait()
	_ = r.Close()
	for f, n := range map[string]int{"server.log": 800, "state-change.log": 800} {
		lines := readLines(t, filepath.Join(dir, f))
		if len(lines) != n {
			t.Errorf("%s: %d lines, want %d", f, len(lines), n)
		}
		for _, line := range lines {
			if !lineLayout.MatchString(line) {
				t.Fatalf("%s: torn line %q", f, line)
			}
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
