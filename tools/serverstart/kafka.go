package serverstart

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	kconfig "github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/core/server"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/core/utils/log4j"
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
	// Logging is configured first, as log4j is when the JVM starts.
	repo := configureLogging(stdout, stderr, getenv)
	defer repo.Close()
	loggers := repo.Loggers("kafka", "state.change.logger", "kafka.request.logger", "kafka.controller", "kafka.authorizer.logger")
	kafkaLog := loggers["kafka"]
	props, err := getPropsFromArgs(args, stderr)
	if err != nil {
		if !errors.Is(err, errUsagePrinted) {
			kafkaLog.WithField(log4j.LoggerField, "kafka.Kafka$").WithField(log4j.ThrowableField, throwable(err)).Fatal("")
		}
		return 1
	}
	cfg, err := config.FromProps(props)
	if err != nil {
		// kafka.Kafka.main: fatal(e) logs no message of its own, then the exception; exit 1.
		kafkaLog.WithField(log4j.LoggerField, "kafka.Kafka$").WithField(log4j.ThrowableField, throwable(err)).Fatal("")
		return 1
	}
	cfgLog := kafkaLog.WithField(log4j.LoggerField, "kafka.server.KafkaConfig")
	cfgLog.Info(cfg.LogString())
	for _, m := range cfg.UnusedMessages() {
		cfgLog.Warn(m)
	}
	srv := server.NewKafkaServerStartable(cfg, server.Loggers{
		Server:      kafkaLog,
		StateChange: loggers["state.change.logger"],
		Request:     loggers["kafka.request.logger"],
		Controller:  loggers["kafka.controller"],
		Authorizer:  loggers["kafka.authorizer.logger"],
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

// throwable renders err as Java's Throwable.toString, "<exception class>: <message>", with the
// class 0.10.2 throws for it (the stack trace that follows in Kafka's log is not reproduced).
func throwable(err error) string {
	var ce *kconfig.ConfigException
	var iae *config.IllegalArgumentException
	var pe *fs.PathError
	switch {
	case errors.As(err, &ce):
		return "org.apache.kafka.common.config.ConfigException: " + ce.Msg
	case errors.As(err, &iae):
		return "java.lang.IllegalArgumentException: " + iae.Msg
	case errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist):
		return "java.io.FileNotFoundException: " + pe.Path + " (No such file or directory)"
	}
	return "org.apache.kafka.common.KafkaException: " + err.Error()
}

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
	env, err := log4j.ServerEnvironment(baseDir(), getenv)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	out, err := os.OpenFile(filepath.Join(env.LogDir, "kafkaServer.out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
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

// baseDir is the installation directory of the running binary: the parent of the bin/ directory
// that holds it (kafka-run-class.sh's base_dir).
func baseDir() string {
	exe, err := os.Executable()
	if err != nil {
		return "."
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return filepath.Dir(filepath.Dir(exe))
}

// configureLogging resolves LOG_DIR and KAFKA_LOG4J_OPTS as kafka-server-start.sh and
// kafka-run-class.sh do and builds the log4j repository (config/log4j.properties by default).
func configureLogging(stdout, stderr io.Writer, getenv func(string) string) *log4j.Repository {
	env, err := log4j.ServerEnvironment(baseDir(), getenv)
	if err != nil {
		fmt.Fprintf(stderr, "log4j:ERROR could not create the log directory: %v\n", err)
	}
	return log4j.Configure(env, stdout, stderr, nil)
}
