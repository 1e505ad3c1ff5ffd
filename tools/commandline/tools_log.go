package commandline

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sirupsen/logrus"

	kconfig "github.com/zkafka/zkafka/clients/config"
)

// toolsFormatter writes config/tools-log4j.properties' pattern
// `[%d] %p %m (%c)%n`, e.g. `[2017-03-01 10:00:00,123] WARN msg (kafka.admin.TopicCommand$)`.
// A component's logIdent (the "ident" field) prefixes the message, as in Kafka; an error
// attached to the entry follows the logger name.
type toolsFormatter struct{}

func (toolsFormatter) Format(e *logrus.Entry) ([]byte, error) {
	var b bytes.Buffer
	ts := e.Time.Format("2006-01-02 15:04:05.000")
	ts = strings.Replace(ts, ".", ",", 1)
	logger, _ := e.Data["logger"].(string)
	ident, _ := e.Data["ident"].(string)
	fmt.Fprintf(&b, "[%s] %s %s%s (%s)", ts, log4jLevel(e.Level), ident, e.Message, logger)
	if err, ok := e.Data[logrus.ErrorKey]; ok {
		fmt.Fprintf(&b, " %v", err)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// ToolsLogger returns the logger a tool writes with: WARN and above to w (the
// tool's stderr) in Kafka's tools-log4j layout, with logger=<name>. The level is
// the root logger's of the log4j file named by KAFKA_LOG4J_OPTS
// (-Dlog4j.configuration=file:<path>), as kafka-run-class.sh lets one choose.
//
// Kafka 0.10.2: config/tools-log4j.properties (root logger WARN, stderr).
func ToolsLogger(w io.Writer, name string) *logrus.Entry {
	l := logrus.New()
	l.SetOutput(w)
	l.SetLevel(ToolsLogLevel(os.Getenv("KAFKA_LOG4J_OPTS")))
	l.SetFormatter(toolsFormatter{})
	return logrus.NewEntry(l).WithField("logger", name)
}

// ToolsLogLevel is the level of log4j.rootLogger in the file that opts
// (KAFKA_LOG4J_OPTS) names with -Dlog4j.configuration=file:<path>; WARN when
// there is none or it cannot be read. Appenders are not read: tools log to stderr.
func ToolsLogLevel(opts string) logrus.Level {
	for _, f := range strings.Fields(opts) {
		path, ok := strings.CutPrefix(f, "-Dlog4j.configuration=")
		if !ok {
			continue
		}
		path = strings.TrimPrefix(path, "file:")
		props, err := kconfig.LoadProps(path)
		if err != nil {
			return logrus.WarnLevel
		}
		level, _, _ := strings.Cut(props["log4j.rootLogger"], ",")
		switch strings.ToUpper(strings.TrimSpace(level)) {
		case "TRACE", "ALL":
			return logrus.TraceLevel
		case "DEBUG":
			return logrus.DebugLevel
		case "INFO":
			return logrus.InfoLevel
		case "ERROR":
			return logrus.ErrorLevel
		case "FATAL", "OFF":
			return logrus.FatalLevel
		}
	}
	return logrus.WarnLevel
}

// log4jLevel names a level as log4j does.
func log4jLevel(l logrus.Level) string {
	switch l {
	case logrus.WarnLevel:
		return "WARN"
	case logrus.PanicLevel:
		return "FATAL"
	}
	return strings.ToUpper(l.String())
}
