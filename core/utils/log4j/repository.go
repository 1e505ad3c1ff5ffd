package log4j

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
)

// LoggerField is the logrus field that carries an entry's log4j logger name; IdentField carries
// Kafka's logIdent, printed before the message; ThrowableField an exception, printed on the lines
// after the message as log4j prints a throwable.
const (
	LoggerField    = "logger"
	IdentField     = "ident"
	ThrowableField = "throwable"
)

// Repository is a configured logger hierarchy: for every logger name its effective level and
// its appenders. It is the logrus.Formatter of the loggers it hands out: formatting an entry
// writes it to its appenders (and returns nothing for logrus to write).
//
// Kafka 0.10.2: what log4j's Hierarchy and PropertyConfigurator build from config/log4j.properties.
type Repository struct {
	cfg       *Config
	appenders map[string]Appender

	mu     sync.RWMutex
	routes map[string]*route
}

type route struct {
	level     Level
	appenders []Appender
}

// NewRepository builds the appenders of cfg. stdout and stderr are the console targets; now is
// the clock of the rolling appenders (nil: time.Now). Problems with the file (an unknown appender
// class, a file that cannot be opened) are written to stderr in log4j's words and the appender is
// left out, as log4j does.
func NewRepository(cfg *Config, stdout, stderr io.Writer, now func() time.Time) *Repository {
	r := &Repository{cfg: cfg, appenders: map[string]Appender{}, routes: map[string]*route{}}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(stderr, w)
	}
	names := make([]string, 0, len(cfg.Appenders))
	for n := range cfg.Appenders {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a, err := newAppender(cfg.Appenders[n], stdout, stderr, now)
		if err != nil {
			fmt.Fprintln(stderr, err)
			continue
		}
		r.appenders[n] = a
	}
	return r
}

// Close closes every appender (the files).
func (r *Repository) Close() error {
	var first error
	for _, a := range r.appenders {
		if err := a.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func parent(name string) (string, bool) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return "", false
	}
	return name[:i], true
}

// EffectiveLevel is the level of the nearest configured ancestor of name (itself included), or
// the root's.
func (r *Repository) EffectiveLevel(name string) Level {
	for n, ok := name, name != ""; ok; n, ok = parent(n) {
		if lc, found := r.cfg.Loggers[n]; found && lc.Level != nil {
			return *lc.Level
		}
	}
	if r.cfg.Root.Level != nil {
		return *r.cfg.Root.Level
	}
	return DEBUG
}

// resolve is the level and the appenders of a logger name: its own and its ancestors' up to the
// first whose additivity is false, then the root's (Category.callAppenders).
func (r *Repository) resolve(name string) *route {
	r.mu.RLock()
	rt, ok := r.routes[name]
	r.mu.RUnlock()
	if ok {
		return rt
	}
	rt = &route{level: r.EffectiveLevel(name)}
	seen := map[Appender]bool{}
	add := func(names []string) {
		for _, n := range names {
			if a, ok := r.appenders[n]; ok && !seen[a] {
				seen[a] = true
				rt.appenders = append(rt.appenders, a)
			}
		}
	}
	additive := true
	for n, ok := name, name != ""; ok && additive; n, ok = parent(n) {
		if lc, found := r.cfg.Loggers[n]; found {
			add(lc.Appenders)
			additive = lc.Additivity
		}
	}
	if additive {
		add(r.cfg.Root.Appenders)
	}
	r.mu.Lock()
	r.routes[name] = rt
	r.mu.Unlock()
	return rt
}

func fromLogrus(l logrus.Level) Level {
	switch l {
	case logrus.TraceLevel:
		return TRACE
	case logrus.DebugLevel:
		return DEBUG
	case logrus.InfoLevel:
		return INFO
	case logrus.WarnLevel:
		return WARN
	case logrus.ErrorLevel:
		return ERROR
	}
	return FATAL
}

func toLogrus(l Level) logrus.Level {
	switch l {
	case ALL, TRACE:
		return logrus.TraceLevel
	case DEBUG:
		return logrus.DebugLevel
	case INFO:
		return logrus.InfoLevel
	case WARN:
		return logrus.WarnLevel
	case ERROR:
		return logrus.ErrorLevel
	case FATAL:
		return logrus.FatalLevel
	}
	return logrus.PanicLevel
}

// Format implements logrus.Formatter: it writes the entry to the appenders of its logger when its
// level passes that logger's effective level. The message is the entry's ident and message,
// followed by its other fields as " k=v" (sorted); the throwable field goes on the next line.
func (r *Repository) Format(e *logrus.Entry) ([]byte, error) {
	name, _ := e.Data[LoggerField].(string)
	lvl := fromLogrus(e.Level)
	rt := r.resolve(name)
	if lvl < rt.level || len(rt.appenders) == 0 {
		return nil, nil
	}
	var msg strings.Builder
	if ident, ok := e.Data[IdentField].(string); ok {
		msg.WriteString(ident)
	}
	msg.WriteString(e.Message)
	var extra []string
	for k, v := range e.Data {
		if k == LoggerField || k == IdentField || k == ThrowableField {
			continue
		}
		extra = append(extra, fmt.Sprintf("%s=%v", k, v))
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		msg.WriteString(" " + strings.Join(extra, " "))
	}
	ev := &Event{Time: e.Time, Level: lvl, Logger: name, Message: msg.String()}
	if t, ok := e.Data[ThrowableField].(string); ok {
		ev.Throwable = t
	}
	for _, a := range rt.appenders {
		a.Append(ev)
	}
	return nil, nil
}

// under reports whether name is root itself or one of its descendants.
func under(name, root string) bool {
	return name == root || strings.HasPrefix(name, root+".")
}

// Loggers returns an entry for each of names, on a logrus.Logger of its own, with
// logger=<name>. Components derive their entries from these with WithField("logger", ...), and the
// Repository routes each by that field. A logger's logrus level is the finest effective level of
// the names its entries may carry: its own subtree minus the subtrees of the other requested
// names, and, for a name under no other requested name, the root and the configured loggers
// outside every requested subtree (the entries of foreign libraries, such as ZooKeeper's client).
// Fatal entries do not exit the process.
func (r *Repository) Loggers(names ...string) map[string]*logrus.Entry {
	out := make(map[string]*logrus.Entry, len(names))
	for _, n := range names {
		level := r.EffectiveLevel(n)
		finer := func(l Level) {
			if l < level {
				level = l
			}
		}
		ownedElsewhere := func(cfgName string) bool {
			for _, m := range names {
				if m != n && under(m, n) && under(cfgName, m) {
					return true
				}
			}
			return false
		}
		topLevel := true
		for _, m := range names {
			if m != n && under(n, m) {
				topLevel = false
			}
		}
		for cfgName := range r.cfg.Loggers {
			switch {
			case under(cfgName, n) && !ownedElsewhere(cfgName):
				finer(r.EffectiveLevel(cfgName))
			case topLevel && !underAny(cfgName, names):
				finer(r.EffectiveLevel(cfgName))
			}
		}
		if topLevel {
			finer(r.EffectiveLevel(""))
		}
		l := logrus.New()
		l.SetOutput(io.Discard)
		l.SetFormatter(r)
		l.SetLevel(toLogrus(level))
		l.ExitFunc = func(int) {}
		out[n] = logrus.NewEntry(l).WithField(LoggerField, n)
	}
	return out
}

func underAny(name string, roots []string) bool {
	for _, root := range roots {
		if under(name, root) {
			return true
		}
	}
	return false
}
