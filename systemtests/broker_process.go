package systemtests

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// BrokerConfig describes one broker process.
type BrokerConfig struct {
	// ID is broker.id.
	ID int32
	// Port is the PLAINTEXT listener port on 127.0.0.1; 0 picks a free one (kept on restarts).
	Port int
	// Host is the listener's address; empty means 127.0.0.1 (the partition tests give each broker
	// an address in a network namespace of its own).
	Host string
	// Dir holds server.properties, broker.log and the log dirs.
	Dir string
	// LogDirs is the number of log directories (log.dirs); 0 means 1.
	LogDirs int
	// ZkConnect is zookeeper.connect, chroot included.
	ZkConnect string
	// Properties override the harness defaults in server.properties.
	Properties map[string]string
	// Overrides are passed as `--override k=v` on the command line (Kafka.scala's overrides).
	Overrides map[string]string
	// Env is added to the process environment (e.g. JMX_PORT=9999), after the harness' LOG_DIR
	// (Dir/logs) and KAFKA_LOG4J_OPTS (Dir/log4j.properties: everything to stdout, at INFO),
	// which it may override (KAFKA_LOG4J_OPTS pointing at the shipped config/log4j.properties
	// makes the broker write Kafka's log files under LOG_DIR).
	Env []string
	// Wrapper is a command prefix, e.g. strace and its options; the broker runs as its child.
	Wrapper []string
}

// defaultBrokerProperties are the harness' server.properties keys besides broker.id, listeners,
// log.dirs and zookeeper.connect: test-friendly sizes, no automatic topic creation, and no
// controlled shutdown, so that stopping a broker does not wait for the controller (the tests of
// controlled shutdown turn it on).
var defaultBrokerProperties = map[string]string{
	"num.network.threads":                           "2",
	"num.io.threads":                                "4",
	"num.partitions":                                "1",
	"default.replication.factor":                    "1",
	"offsets.topic.replication.factor":              "1",
	"auto.create.topics.enable":                     "false",
	"controlled.shutdown.enable":                    "false",
	"delete.topic.enable":                           "true",
	"zookeeper.session.timeout.ms":                  "6000",
	"zookeeper.connection.timeout.ms":               "10000",
	"log.segment.bytes":                             "1073741824",
	"log.retention.check.interval.ms":               "300000",
	"num.recovery.threads.per.data.dir":             "1",
	"socket.request.max.bytes":                      "104857600",
	"replica.high.watermark.checkpoint.interval.ms": "5000",
}

// BrokerProcess is one `zkafka server-start` child process. Its signals go to its process group,
// so a wrapper (strace) and the broker are stopped, paused and resumed together.
//
// Kafka 0.10.2: tests/kafkatest/services/kafka/kafka.py KafkaService (start_node, stop_node with
// clean_shutdown, signal_node, pids) for one node.
type BrokerProcess struct {
	Bin        string
	ID         int32
	Host       string
	Port       int
	Dir        string
	ConfigPath string
	LogDirs    []string

	cfg  BrokerConfig
	logs *LogCapture

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
	paused  bool
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// NewBrokerProcess writes the broker's server.properties under cfg.Dir; it does not start it.
func NewBrokerProcess(bin string, cfg BrokerConfig) (*BrokerProcess, error) {
	if cfg.Port == 0 {
		p, err := FreePort()
		if err != nil {
			return nil, err
		}
		cfg.Port = p
	}
	if cfg.LogDirs <= 0 {
		cfg.LogDirs = 1
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	b := &BrokerProcess{
		Bin: bin, ID: cfg.ID, Host: cfg.Host, Port: cfg.Port, Dir: cfg.Dir, cfg: cfg,
		ConfigPath: filepath.Join(cfg.Dir, "server.properties"),
		logs:       NewLogCapture(filepath.Join(cfg.Dir, "broker.log")),
	}
	for i := 0; i < cfg.LogDirs; i++ {
		b.LogDirs = append(b.LogDirs, filepath.Join(cfg.Dir, fmt.Sprintf("kafka-logs-%d", i)))
	}
	props := map[string]string{}
	for k, v := range defaultBrokerProperties {
		props[k] = v
	}
	props["broker.id"] = strconv.Itoa(int(cfg.ID))
	props["listeners"] = fmt.Sprintf("PLAINTEXT://%s:%d", cfg.Host, cfg.Port)
	props["log.dirs"] = strings.Join(b.LogDirs, ",")
	props["zookeeper.connect"] = cfg.ZkConnect
	for k, v := range cfg.Properties {
		props[k] = v
	}
	if err := os.WriteFile(b.ConfigPath, formatProperties(props), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(cfg.Dir, "log4j.properties"), []byte(harnessLog4j), 0o644); err != nil {
		return nil, err
	}
	return b, nil
}

// harnessLog4j sends every logger to stdout at INFO, so that the captured output (Logs) holds the
// controller's and the request handlers' lines as well as the broker's; state.change.logger is at
// TRACE, as Kafka 0.10.2's config/log4j.properties sets it, so every LeaderAndIsr and
// UpdateMetadata a controller sends and a broker receives is in the captured output too.
const harnessLog4j = `log4j.rootLogger=INFO, stdout
log4j.logger.state.change.logger=TRACE
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
`

// LogDir is the broker's LOG_DIR (where the log4j file appenders write).
func (b *BrokerProcess) LogDir() string { return filepath.Join(b.Dir, "logs") }

func formatProperties(props map[string]string) []byte {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	sb.WriteString("# written by the zkafka systemtests harness\n")
	for _, k := range keys {
		fmt.Fprintf(&sb, "%s=%s\n", k, props[k])
	}
	return []byte(sb.String())
}

// Addr is the broker's "127.0.0.1:port" (its Host instead of 127.0.0.1 when set).
func (b *BrokerProcess) Addr() string { return net.JoinHostPort(b.Host, strconv.Itoa(b.Port)) }

// Logs is the broker's captured stdout and stderr.
func (b *BrokerProcess) Logs() *LogCapture { return b.logs }

// Start launches the process (it must not be running). It returns once the process exists; use
// Cluster.WaitRegistered or Logs().Expect to wait until it serves.
func (b *BrokerProcess) Start() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd != nil && !isClosed(b.done) {
		return fmt.Errorf("broker %d is already running (pid %d)", b.ID, b.cmd.Process.Pid)
	}
	out, err := os.OpenFile(b.logs.Path(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	b.logs.markStart()
	args := append([]string{}, b.cfg.Wrapper...)
	args = append(args, b.Bin, "server-start", b.ConfigPath)
	keys := make([]string, 0, len(b.cfg.Overrides))
	for k := range b.cfg.Overrides {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "--override", k+"="+b.cfg.Overrides[k])
	}
	fmt.Fprintf(out, "=== systemtests: starting broker %d: %s\n", b.ID, strings.Join(args, " "))
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = b.Dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), "LOG_DIR="+b.LogDir(),
		"KAFKA_LOG4J_OPTS=-Dlog4j.configuration=file:"+filepath.Join(b.Dir, "log4j.properties"))
	cmd.Env = append(cmd.Env, b.cfg.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start broker %d: %w", b.ID, err)
	}
	done := make(chan struct{})
	b.cmd, b.done, b.waitErr, b.paused = cmd, done, nil, false
	go func() {
		err := cmd.Wait()
		b.mu.Lock()
		b.waitErr = err
		b.mu.Unlock()
		close(done)
	}()
	return nil
}

func isClosed(c chan struct{}) bool {
	if c == nil {
		return true
	}
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// PID is the process id (of the wrapper when there is one), or 0 when not running.
func (b *BrokerProcess) PID() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil || isClosed(b.done) {
		return 0
	}
	return b.cmd.Process.Pid
}

// Running reports whether the process has not exited.
func (b *BrokerProcess) Running() bool { return b.PID() != 0 }

// Exited returns a channel closed when the current process exits (closed if none runs).
func (b *BrokerProcess) Exited() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return b.done
}

// ExitCode is the last process's exit code (-1 when killed by a signal or still running).
func (b *BrokerProcess) ExitCode() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil || b.cmd.ProcessState == nil {
		return -1
	}
	return b.cmd.ProcessState.ExitCode()
}

func (b *BrokerProcess) signal(sig syscall.Signal) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil || isClosed(b.done) {
		return fmt.Errorf("broker %d is not running", b.ID)
	}
	if err := syscall.Kill(-b.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %v to broker %d: %w", sig, b.ID, err)
	}
	switch sig {
	case syscall.SIGSTOP:
		b.paused = true
	case syscall.SIGCONT:
		b.paused = false
	}
	return nil
}

// Stop sends SIGTERM (Kafka's shutdown hook: a clean shutdown) and waits up to timeout for the
// process to exit, then SIGKILLs it and reports the timeout. A paused broker is resumed first.
func (b *BrokerProcess) Stop(timeout time.Duration) error {
	done := b.Exited()
	if isClosed(b.done) {
		return nil
	}
	b.mu.Lock()
	paused := b.paused
	b.mu.Unlock()
	if err := b.signal(syscall.SIGTERM); err != nil {
		return err
	}
	if paused {
		_ = b.signal(syscall.SIGCONT)
	}
	select {
	case <-done:
		return nil
	case <-time.After(timeout):
		_ = b.Kill()
		return fmt.Errorf("broker %d did not exit within %v of SIGTERM; killed", b.ID, timeout)
	}
}

// Kill sends SIGKILL to the process group and waits for the exit.
func (b *BrokerProcess) Kill() error {
	done := b.Exited()
	if isClosed(b.done) {
		return nil
	}
	if err := b.signal(syscall.SIGKILL); err != nil {
		return err
	}
	select {
	case <-done:
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("broker %d did not die after SIGKILL", b.ID)
	}
}

// Pause freezes the process group with SIGSTOP (a long GC pause: sockets stay open, nothing
// answers, and the ZooKeeper session expires if it lasts longer than the session timeout).
func (b *BrokerProcess) Pause() error {
	if err := b.signal(syscall.SIGSTOP); err != nil {
		return err
	}
	// SIGSTOP is delivered asynchronously: wait until every thread shows as stopped, so a caller
	// that probes right after Pause sees a frozen broker.
	return waitAllThreadsStopped(b.PID(), 5*time.Second)
}

// waitAllThreadsStopped polls /proc/<pid>/task/*/stat until each thread's state is T or t.
func waitAllThreadsStopped(pid int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "stat"))
		stopped := len(tasks) > 0
		for _, f := range tasks {
			raw, err := os.ReadFile(f)
			if err != nil {
				continue // the thread exited
			}
			i := strings.LastIndexByte(string(raw), ')')
			if i < 0 || i+2 >= len(raw) || (raw[i+2] != 'T' && raw[i+2] != 't') {
				stopped = false
				break
			}
		}
		if stopped {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("process %d did not stop within %v", pid, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Resume continues the process group with SIGCONT.
func (b *BrokerProcess) Resume() error { return b.signal(syscall.SIGCONT) }

// Restart stops the broker cleanly (when running) and starts it again with the same port,
// config and data.
func (b *BrokerProcess) Restart(stopTimeout time.Duration) error {
	if err := b.Stop(stopTimeout); err != nil {
		return err
	}
	return b.Start()
}

// CPUTime is user+system CPU time the running process has used so far, from /proc/<pid>/stat
// (utime and stime, in clock ticks of 1/100 s on Linux).
func (b *BrokerProcess) CPUTime() (time.Duration, error) {
	pid := b.PID()
	if pid == 0 {
		return 0, fmt.Errorf("broker %d is not running", b.ID)
	}
	return ProcessCPUTime(pid)
}

// ProcessSchedTime is the CPU time pid's threads have run so far, in nanoseconds: the sum of the
// first field of /proc/<pid>/task/<tid>/schedstat over its live threads (the scheduler's own
// accounting, not utime/stime's 10 ms ticks). Threads that exited are not counted; a Go
// process keeps its threads.
func ProcessSchedTime(pid int) (time.Duration, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, err
	}
	var total int64
	for _, t := range tasks {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue // the thread exited
		}
		f := strings.Fields(string(data))
		if len(f) < 1 {
			return 0, fmt.Errorf("malformed schedstat of %d/%s", pid, t.Name())
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("malformed schedstat of %d/%s", pid, t.Name())
		}
		total += ns
	}
	return time.Duration(total), nil
}

// ProcessCPUTime reads utime+stime of pid from /proc/<pid>/stat.
func ProcessCPUTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces: split after its ')'.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	fields := strings.Fields(string(data[i+1:]))
	// fields[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(fields) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	ut, err1 := strconv.ParseInt(fields[11], 10, 64)
	st, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("malformed /proc/%d/stat times", pid)
	}
	const ticksPerSecond = 100 // sysconf(_SC_CLK_TCK) on Linux
	return time.Duration(ut+st) * time.Second / ticksPerSecond, nil
}
