package serverstart

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	kconfig "github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/core/server"
	"github.com/zkafka/zkafka/core/server/config"
)

// Usage is kafka-server-start.sh's usage line.
const Usage = "USAGE: kafka-server-start.sh [-daemon] server.properties [--override property=value]*"

// Run implements `zkafka server-start [-daemon] server.properties [--override k=v]*` and returns
// the exit status: 0 after a clean shutdown on SIGTERM/SIGINT, 1 on a usage or startup error.
func Run(args []string, stdout, stderr io.Writer) int {
	return run(args, stdout, stderr, os.Getenv, nil)
}

// run takes getenv and an optional stop channel (tests close it instead of sending a signal).
func run(args []string, stdout, stderr io.Writer, getenv func(string) string, stop <-chan struct{}) int {
	if len(args) < 1 {
		fmt.Fprintln(stdout, Usage)
		return 1
	}
	if args[0] == "-daemon" {
		return daemonize(args[1:], stdout, stderr, getenv)
	}
	stdout = &lockedWriter{w: stdout} // two loggers (below) share it
	logger := newLogger(stdout)
	props, err := getPropsFromArgs(args, stderr)
	if err != nil {
		if !errors.Is(err, errUsagePrinted) {
			logger.WithField("logger", "kafka.Kafka$").Fatalf("%v", err)
		}
		return 1
	}
	cfg, err := config.FromProps(props)
	if err != nil {
		logger.WithField("logger", "kafka.Kafka$").Errorf("FATAL %v", err)
		return 1
	}
	logger.WithField("logger", "kafka.server.KafkaConfig").Info("KafkaConfig values: \n" + cfg.LogString())
	base := logrus.NewEntry(logger)
	// state.change.logger logs at TRACE, as Kafka 0.10.2's config/log4j.properties sets it: every
	// LeaderAndIsr and UpdateMetadata a controller sends and a broker receives, with the
	// controller's id and epoch (Kafka writes them to state-change.log; here they share stdout).
	stateChange := newLogger(stdout)
	stateChange.SetLevel(logrus.TraceLevel)
	srv := server.NewKafkaServerStartable(cfg, server.Loggers{
		Server:      base.WithField("logger", "kafka"),
		StateChange: logrus.NewEntry(stateChange).WithField("logger", "state.change.logger"),
		Request:     base.WithField("logger", "kafka.request.logger"),
	}, getenv)
	// The shutdown hook is in place before startup, as in kafka.Kafka: a signal that arrives
	// while the broker starts shuts it down as soon as it is up.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	if err := srv.Startup(); err != nil {
		return 1
	}
	select {
	case <-sigs:
	case <-stop:
	}
	srv.Shutdown()
	srv.AwaitShutdown()
	return 0
}

var errUsagePrinted = errors.New("usage printed")

// getPropsFromArgs loads the properties file and applies the --override options; any other
// non-option argument is an error, as in kafka.Kafka.
func getPropsFromArgs(args []string, stderr io.Writer) (map[string]string, error) {
	props, err := kconfig.LoadProps(args[0])
	if err != nil {
		return nil, err
	}
	var overrides, nonOptions []string
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--override":
			if i+1 >= len(rest) {
				return nil, fmt.Errorf("Option override requires an argument")
			}
			overrides = append(overrides, rest[i+1])
			i++
		case strings.HasPrefix(a, "--override="):
			overrides = append(overrides, strings.TrimPrefix(a, "--override="))
		case a == "--":
			nonOptions = append(nonOptions, rest[i+1:]...)
			i = len(rest)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			return nil, fmt.Errorf("%s is not a recognized option", strings.TrimLeft(a, "-"))
		default:
			nonOptions = append(nonOptions, a)
		}
	}
	if len(nonOptions) > 0 {
		fmt.Fprintln(stderr, "Found non argument parameters: "+strings.Join(nonOptions, ","))
		fmt.Fprint(stderr, optionHelp)
		return nil, errUsagePrinted
	}
	return config.ApplyOverrides(props, overrides)
}

// optionHelp is joptsimple's help table for kafka.Kafka's single option.
const optionHelp = `Option                                 Description                            
------                                 -----------                            
--override                             Optional property that should override 
                                         values set in server.properties file 
`

// daemonize starts `zkafka server-start args...` in the background, its output appended to
// $LOG_DIR/kafkaServer.out (LOG_DIR defaults to ./logs), and returns at once.
func daemonize(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) < 1 {
		fmt.Fprintln(stdout, Usage)
		return 1
	}
	logDir := getenv("LOG_DIR")
	if logDir == "" {
		logDir = "logs"
	}
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	out, err := os.OpenFile(filepath.Join(logDir, "kafkaServer.out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer out.Close()
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	cmd := exec.Command(self, append([]string{"server-start"}, args...)...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = detachedProcAttr()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	_ = cmd.Process.Release()
	return 0
}

// lockedWriter serialises the writes of several loggers to one writer, one whole line each.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// newLogger writes log4j's console layout.
func newLogger(w io.Writer) *logrus.Logger {
	l := logrus.New()
	l.SetOutput(w)
	l.SetLevel(logrus.InfoLevel)
	l.SetFormatter(log4jFormatter{})
	l.ExitFunc = func(int) {}
	return l
}

// log4jFormatter prints "[2017-03-01 10:00:00,123] INFO <ident><message> (<logger>)".
type log4jFormatter struct{}

func (log4jFormatter) Format(e *logrus.Entry) ([]byte, error) {
	var b strings.Builder
	ts := e.Time.Format("2006-01-02 15:04:05.000")
	b.WriteString("[" + strings.Replace(ts, ".", ",", 1) + "] ")
	b.WriteString(levelName(e.Level) + " ")
	if ident, ok := e.Data["ident"].(string); ok {
		b.WriteString(ident)
	}
	b.WriteString(e.Message)
	logger, _ := e.Data["logger"].(string)
	if logger == "" {
		logger = "kafka"
	}
	b.WriteString(" (" + logger + ")")
	var extra []string
	for k, v := range e.Data {
		if k == "logger" || k == "ident" {
			continue
		}
		extra = append(extra, fmt.Sprintf("%s=%v", k, v))
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		b.WriteString(" " + strings.Join(extra, " "))
	}
	b.WriteByte('\n')
	return []byte(b.String()), nil
}

func levelName(l logrus.Level) string {
	switch l {
	case logrus.PanicLevel, logrus.FatalLevel:
		return "FATAL"
	case logrus.WarnLevel:
		return "WARN"
	}
	return strings.ToUpper(l.String())
}

var _ = time.Now
