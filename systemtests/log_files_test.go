package systemtests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// shippedLog4j is KAFKA_LOG4J_OPTS selecting the repository's config/log4j.properties.
func shippedLog4j(t *testing.T) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return "KAFKA_LOG4J_OPTS=-Dlog4j.configuration=file:" + filepath.Join(root, "config", "log4j.properties")
}

// readLogFile returns the text of a log4j file under dir, its hourly-rolled predecessors
// (name.yyyy-MM-dd-HH) first.
func readLogFile(dir, name string) string {
	rolled, _ := filepath.Glob(filepath.Join(dir, name+".*"))
	var b strings.Builder
	for _, f := range append(rolled, filepath.Join(dir, name)) {
		data, _ := os.ReadFile(f)
		b.Write(data)
	}
	return b.String()
}

// waitLogLine waits until the log4j file name under dir has a line matching re.
func waitLogLine(ctx context.Context, dir, name string, re *regexp.Regexp) error {
	return WaitFor(ctx, func() string { return fmt.Sprintf("%s/%s has no line matching %s", dir, name, re) }, func() bool {
		return re.MatchString(readLogFile(dir, name))
	})
}

// log4jStart and log4jEnd are the two ends of the layout "[%d] %p %m (%c)%n" of every appender of
// config/log4j.properties; a message may span lines (the "KafkaConfig values" block).
var (
	log4jStart = regexp.MustCompile(`^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) `)
	log4jEnd   = regexp.MustCompile(` \([A-Za-z0-9_.$]+\)$`)
)

// notInLayout returns the first record of a log file that is not in the layout: it must start
// with "[date] LEVEL " and end with " (logger)", possibly lines later.
func notInLayout(text string) string {
	var record []string
	check := func() string {
		if len(record) == 0 {
			return ""
		}
		for _, l := range record {
			if log4jEnd.MatchString(l) {
				return ""
			}
		}
		return strings.Join(record, "\n")
	}
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		switch {
		case log4jStart.MatchString(line):
			if bad := check(); bad != "" {
				return bad
			}
			record = []string{line}
		case len(record) == 0:
			return line
		default:
			record = append(record, line)
		}
	}
	return check()
}

// TestLogFilesAndControllerFailover: `server-start` with the shipped config/log4j.properties
// writes Kafka 0.10.2's six log files under LOG_DIR in its line layout, keeps the controller's and
// the state changes' lines out of the console, and a controller failover shows where a reader of
// the controller chapters looks for it: the old controller's election in its controller.log and
// its state changes at the old epoch in its state-change.log; the new controller's
// become-controller transition and new epoch in its controller.log, its state changes at the new
// epoch and its own broker receiving the new epoch's LeaderAndIsr in its state-change.log.
func TestLogFilesAndControllerFailover(t *testing.T) {
	c := newCluster(t, ClusterConfig{Brokers: 2, Env: []string{shippedLog4j(t)}})
	ctx := within(t, 2*time.Minute)
	var old, epoch int32
	if err := WaitFor(ctx, func() string { return "no controller elected" }, func() bool {
		old, epoch = c.ControllerInfo()
		return old >= 0
	}); err != nil {
		t.Fatal(err)
	}
	other := c.Brokers[0].ID
	if other == old {
		other = c.Brokers[1].ID
	}
	const topic = "log-files"
	if err := c.CreateTopic(ctx, topic, map[int32][]int32{0: {old, other}, 1: {other, old}}); err != nil {
		t.Fatal(err)
	}
	for _, b := range c.Brokers {
		for _, f := range []string{"server.log", "state-change.log", "controller.log", "kafka-request.log", "log-cleaner.log", "kafka-authorizer.log"} {
			if _, err := os.Stat(filepath.Join(b.LogDir(), f)); err != nil {
				t.Errorf("broker %d: %v", b.ID, err)
			}
		}
		started := regexp.MustCompile(fmt.Sprintf(`(?m)^\[[^]]+\] INFO \[Kafka Server %d\], started \(kafka\.server\.KafkaServer\)$`, b.ID))
		if err := waitLogLine(ctx, b.LogDir(), "server.log", started); err != nil {
			t.Error(err)
		}
		for _, f := range []string{"server.log", "state-change.log", "controller.log"} {
			if bad := notInLayout(readLogFile(b.LogDir(), f)); bad != "" {
				t.Errorf("broker %d %s: %q is not in the layout [%%d] %%p %%m (%%c)", b.ID, f, bad)
			}
		}
		if lines := b.Logs().Matches(regexp.MustCompile(`\((kafka\.controller\.[A-Za-z]+|state\.change\.logger)\)$`)); len(lines) > 0 {
			t.Errorf("broker %d: controller or state-change lines on the console: %q", b.ID, lines[0])
		}
		if b.Logs().Matches(started) == nil {
			t.Errorf("broker %d: the started line is not on the console (root logger, stdout)", b.ID)
		}
	}
	oldDir, otherDir := c.Broker(old).LogDir(), c.Broker(other).LogDir()
	for _, w := range []struct {
		dir, file string
		re        string
	}{
		{oldDir, "controller.log", fmt.Sprintf(`\[Controller %d\]: Broker %d starting become controller state transition \(kafka\.controller\.KafkaController\)`, old, old)},
		{oldDir, "state-change.log", fmt.Sprintf(`TRACE Controller %d epoch %d changed partition \[%s,0\] from NewPartition to OnlinePartition with leader %d \(state\.change\.logger\)`, old, epoch, topic, old)},
		{otherDir, "state-change.log", fmt.Sprintf(`Broker %d received LeaderAndIsr request .* from controller %d epoch %d for partition \[%s,1\] \(state\.change\.logger\)`, other, old, epoch, topic)},
	} {
		if err := waitLogLine(ctx, w.dir, w.file, regexp.MustCompile(w.re)); err != nil {
			t.Error(err)
		}
	}

	if err := c.Broker(old).Kill(); err != nil {
		t.Fatal(err)
	}
	var now, newEpoch int32
	if err := WaitFor(within(t, time.Minute), func() string { return fmt.Sprintf("controller still %d epoch %d", now, newEpoch) }, func() bool {
		now, newEpoch = c.ControllerInfo()
		return now == other && newEpoch > epoch
	}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct{ file, re string }{
		{"controller.log", fmt.Sprintf(`\[Controller %d\]: Broker %d starting become controller state transition`, other, other)},
		{"controller.log", fmt.Sprintf(`Controller %d incremented epoch to %d`, other, newEpoch)},
		{"state-change.log", fmt.Sprintf(`TRACE Controller %d epoch %d changed partition \[%s,0\] from OfflinePartition to OnlinePartition with leader %d`, other, newEpoch, topic, other)},
		{"state-change.log", fmt.Sprintf(`Broker %d received LeaderAndIsr request .* from controller %d epoch %d for partition \[%s,0\]`, other, other, newEpoch, topic)},
	} {
		if err := waitLogLine(ctx, otherDir, w.file, regexp.MustCompile(w.re)); err != nil {
			t.Error(err)
		}
	}
}

// TestServerStartConfigErrors runs the binary: a value of the wrong type or out of range in
// server.properties stops server-start with Kafka 0.10.2's FATAL line and ConfigException and exit
// code 1, in server.log as on the console; an unknown key is logged as AbstractConfig.logUnused
// logs it.
func TestServerStartConfigErrors(t *testing.T) {
	if suite.skip != "" {
		t.Skip(suite.skip)
	}
	run := func(props string) (string, string, int) {
		t.Helper()
		dir := t.TempDir()
		path := filepath.Join(dir, "server.properties")
		if err := os.WriteFile(path, []byte(props), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, suite.bin, "server-start", path)
		cmd.Env = append(os.Environ(), "LOG_DIR="+filepath.Join(dir, "logs"), shippedLog4j(t))
		out, _ := cmd.CombinedOutput()
		return string(out), readLogFile(filepath.Join(dir, "logs"), "server.log"), cmd.ProcessState.ExitCode()
	}
	for _, c := range []struct{ props, exception string }{
		{"broker.id=x\n", "org.apache.kafka.common.config.ConfigException: Invalid value x for configuration broker.id: Not a number of type INT"},
		{"num.network.threads=0\n", "org.apache.kafka.common.config.ConfigException: Invalid value 0 for configuration num.network.threads: Value must be at least 1"},
		{"log.retention.hours=forever\n", "org.apache.kafka.common.config.ConfigException: Invalid value forever for configuration log.retention.hours: Not a number of type INT"},
	} {
		out, serverLog, code := run("zookeeper.connect=127.0.0.1:1\n" + c.props)
		fatal := regexp.MustCompile(`(?m)^\[[^]]+\] FATAL  \(kafka\.Kafka\$\)\n` + regexp.QuoteMeta(c.exception) + `$`)
		if code != 1 || !fatal.MatchString(out) || !fatal.MatchString(serverLog) {
			t.Errorf("%s: exit %d\nconsole:\n%s\nserver.log:\n%s", strings.TrimSpace(c.props), code, out, serverLog)
		}
	}
	// An unknown key: logged, and startup goes on (here to a ZooKeeper that is not there).
	out, _, code := run("zookeeper.connect=127.0.0.1:1\nzookeeper.connection.timeout.ms=1000\nlog.dirs=" + t.TempDir() + "\nno.such.key=1\n")
	if code != 1 || !regexp.MustCompile(`(?m)^\[[^]]+\] WARN The configuration 'no\.such\.key' was supplied but isn't a known config\. \(kafka\.server\.KafkaConfig\)$`).MatchString(out) {
		t.Errorf("unknown key: exit %d\n%s", code, out)
	}
}
