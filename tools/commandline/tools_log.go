package commandline

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/sirupsen/logrus"
)

// toolsFormatter writes config/tools-log4j.properties' pattern
// `[%d] %p %m (%c)%n`, e.g. `[2017-03-01 10:00:00,123] WARN msg (kafka.admin.TopicCommand$)`.
type toolsFormatter struct{}

func (toolsFormatter) Format(e *logrus.Entry) ([]byte, error) {
	var b bytes.Buffer
	ts := e.Time.Format("2006-01-02 15:04:05.000")
	ts = strings.Replace(ts, ".", ",", 1)
	logger, _ := e.Data["logger"].(string)
	fmt.Fprintf(&b, "[%s] %s %s (%s)\n", ts, log4jLevel(e.Level), e.Message, logger)
	return b.Bytes(), nil
}

// ToolsLogger returns the logger a tool writes with: WARN and above to w (the
// tool's stderr) in Kafka's tools-log4j layout, with logger=<name>.
//
// Kafka 0.10.2: config/tools-log4j.properties (root logger WARN, stderr).
func ToolsLogger(w io.Writer, name string) *logrus.Entry {
	l := logrus.New()
	l.SetOutput(w)
	l.SetLevel(logrus.WarnLevel)
	l.SetFormatter(toolsFormatter{})
	return logrus.NewEntry(l).WithField("logger", name)
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
