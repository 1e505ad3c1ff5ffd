package log4j

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Environment is what kafka-run-class.sh hands log4j: the log directory, the configuration file
// and the -D system properties of KAFKA_LOG4J_OPTS.
//
// Kafka 0.10.2: bin/kafka-run-class.sh (LOG_DIR defaulting to $base_dir/logs, created when
// KAFKA_LOG4J_OPTS is set; KAFKA_LOG4J_OPTS="-Dkafka.logs.dir=$LOG_DIR $KAFKA_LOG4J_OPTS") and
// bin/kafka-server-start.sh (KAFKA_LOG4J_OPTS defaulting to
// -Dlog4j.configuration=file:$base_dir/../config/log4j.properties).
type Environment struct {
	LogDir     string            // LOG_DIR
	ConfigFile string            // from -Dlog4j.configuration; "" when none is given
	SysProps   map[string]string // the -D options, kafka.logs.dir included
	// Explicit is set when KAFKA_LOG4J_OPTS gave the options; otherwise ConfigFile is the default
	// config/log4j.properties beside the binary's bin/ directory.
	Explicit bool
}

// ServerEnvironment resolves the environment of `kafka-server-start.sh`: baseDir is the
// installation directory (the parent of bin/), getenv reads LOG_DIR and KAFKA_LOG4J_OPTS. The log
// directory is created, as kafka-run-class.sh creates it whenever KAFKA_LOG4J_OPTS is set (which
// kafka-server-start.sh always does).
func ServerEnvironment(baseDir string, getenv func(string) string) (Environment, error) {
	env := Environment{LogDir: getenv("LOG_DIR"), SysProps: map[string]string{}}
	if env.LogDir == "" {
		env.LogDir = filepath.Join(baseDir, "logs")
	}
	opts := getenv("KAFKA_LOG4J_OPTS")
	env.Explicit = strings.TrimSpace(opts) != ""
	if !env.Explicit {
		opts = "-Dlog4j.configuration=file:" + filepath.Join(baseDir, "config", "log4j.properties")
	}
	// -Dkafka.logs.dir comes first, so a -D of the same name in KAFKA_LOG4J_OPTS wins (the JVM
	// keeps the last).
	env.SysProps["kafka.logs.dir"] = env.LogDir
	for _, tok := range strings.Fields(opts) {
		kv, ok := strings.CutPrefix(tok, "-D")
		if !ok {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		env.SysProps[k] = v
	}
	if c, ok := env.SysProps["log4j.configuration"]; ok {
		env.ConfigFile = strings.TrimPrefix(c, "file:")
		env.ConfigFile = strings.TrimPrefix(env.ConfigFile, "//")
	}
	if err := os.MkdirAll(env.LogDir, 0o755); err != nil {
		return env, err
	}
	return env, nil
}

// Configure builds the Repository of env: its configuration file, or, when there is none or it
// cannot be read, the console-only default (the root logger at INFO on stdout), so that the
// broker's output is never lost. A file named by KAFKA_LOG4J_OPTS that cannot be read is reported
// on stderr in log4j's words; a missing default file (a binary installed without its config/
// directory) is not.
func Configure(env Environment, stdout, stderr io.Writer, now func() time.Time) *Repository {
	var cfg *Config
	if env.ConfigFile != "" {
		var err error
		if cfg, err = LoadConfig(env.ConfigFile, env.SysProps); err != nil && env.Explicit {
			fmt.Fprintf(stderr, "log4j:ERROR Could not read configuration file from URL [file:%s].\n", env.ConfigFile)
			fmt.Fprintf(stderr, "log4j:ERROR Ignoring configuration file [file:%s]; logging to the console only.\n", env.ConfigFile)
		}
	}
	if cfg == nil {
		cfg = DefaultConsoleConfig()
	}
	return NewRepository(cfg, stdout, stderr, now)
}
