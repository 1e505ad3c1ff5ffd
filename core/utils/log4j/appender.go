package log4j

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Appender writes events somewhere.
type Appender interface {
	Append(e *Event)
	Close() error
}

// base holds what every appender shares: its layout, threshold and lock (log4j's
// AppenderSkeleton.doAppend is synchronized).
type base struct {
	mu        sync.Mutex
	layout    Layout
	threshold Level
}

// render is the layout's text followed by the throwable's lines, as WriterAppender.subAppend
// writes them when the layout ignores throwables.
func (b *base) render(e *Event) []byte {
	s := b.layout.Format(e)
	if e.Throwable != "" {
		s += e.Throwable
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
	}
	return []byte(s)
}

// consoleAppender is ConsoleAppender: Target System.out (the default) or System.err.
type consoleAppender struct {
	base
	w io.Writer
}

func (a *consoleAppender) Append(e *Event) {
	if e.Level < a.threshold {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	_, _ = a.w.Write(a.render(e))
}

func (a *consoleAppender) Close() error { return nil }

// fileAppender is FileAppender (Append, default true), and with a dated or size policy
// DailyRollingFileAppender or RollingFileAppender.
type fileAppender struct {
	base
	path string
	f    *os.File
	size int64
	now  func() time.Time

	// DailyRollingFileAppender: the file is renamed to path+format(period) when the period ends.
	dated      *dateFormat
	period     time.Duration // granularity of the DatePattern
	monthly    bool
	nextCheck  time.Time
	scheduled  string // the name the current file gets when it rolls
	maxSize    int64  // RollingFileAppender: roll past this size (0: never)
	maxBackups int
}

func openFileAppender(path string, appendMode bool) (*fileAppender, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if !appendMode {
		flags = os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return &fileAppender{path: path, f: f, size: fi.Size(), now: time.Now}, nil
}

// setDatePattern makes a DailyRollingFileAppender: the file's current period is the one of its
// last modification (DailyRollingFileAppender.activateOptions).
func (a *fileAppender) setDatePattern(pattern string) {
	a.dated = newDateFormat(pattern)
	a.period, a.monthly = granularity(pattern)
	last := a.now()
	if fi, err := a.f.Stat(); err == nil && fi.Size() > 0 {
		last = fi.ModTime()
	}
	a.scheduled = a.path + a.dated.format(last)
	a.nextCheck = a.nextPeriod(a.now())
}

// granularity is the shortest unit the DatePattern prints (RollingCalendar.computeCheckPeriod).
func granularity(pattern string) (time.Duration, bool) {
	unquoted := stripQuoted(pattern)
	switch {
	case strings.ContainsAny(unquoted, "ms"):
		return time.Minute, false
	case strings.ContainsAny(unquoted, "Hhka"):
		return time.Hour, false
	case strings.ContainsAny(unquoted, "dE"):
		return 24 * time.Hour, false
	case strings.ContainsAny(unquoted, "M"):
		return 0, true
	}
	return 24 * time.Hour, false
}

// stripQuoted drops the quoted literals of a date pattern ('.' in '.'yyyy-MM-dd-HH).
func stripQuoted(pattern string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == '\'' {
			in = !in
			continue
		}
		if !in {
			b.WriteByte(pattern[i])
		}
	}
	return b.String()
}

func (a *fileAppender) nextPeriod(t time.Time) time.Time {
	if a.monthly {
		return time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, t.Location())
	}
	if a.period == 24*time.Hour {
		return time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, t.Location())
	}
	return t.Truncate(a.period).Add(a.period)
}

func (a *fileAppender) Append(e *Event) {
	if e.Level < a.threshold {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return
	}
	if a.dated != nil {
		if now := a.now(); !now.Before(a.nextCheck) {
			a.nextCheck = a.nextPeriod(now)
			a.rollDated(now)
		}
	}
	n, _ := a.f.Write(a.render(e))
	a.size += int64(n)
	if a.maxSize > 0 && a.size >= a.maxSize {
		a.rollSize()
	}
}

// rollDated is DailyRollingFileAppender.rollOver: the current file becomes path+<its period>.
func (a *fileAppender) rollDated(now time.Time) {
	dated := a.path + a.dated.format(now)
	if dated == a.scheduled {
		return
	}
	_ = a.f.Close()
	_ = os.Remove(a.scheduled)
	if err := os.Rename(a.path, a.scheduled); err != nil {
		fmt.Fprintf(os.Stderr, "log4j:ERROR Failed to rename [%s] to [%s].\n", a.path, a.scheduled)
	}
	a.reopen()
	a.scheduled = dated
}

// rollSize is RollingFileAppender.rollOver: path.N-1 -> path.N, ..., path -> path.1.
func (a *fileAppender) rollSize() {
	_ = a.f.Close()
	if a.maxBackups > 0 {
		_ = os.Remove(a.path + "." + strconv.Itoa(a.maxBackups))
		for i := a.maxBackups - 1; i >= 1; i-- {
			_ = os.Rename(a.path+"."+strconv.Itoa(i), a.path+"."+strconv.Itoa(i+1))
		}
		_ = os.Rename(a.path, a.path+".1")
	} else {
		_ = os.Truncate(a.path, 0)
	}
	a.reopen()
}

func (a *fileAppender) reopen() {
	f, err := os.OpenFile(a.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "log4j:ERROR setFile(%s,true) call failed: %v\n", a.path, err)
		a.f = nil
		return
	}
	a.f, a.size = f, 0
}

func (a *fileAppender) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	err := a.f.Close()
	a.f = nil
	return err
}

// parseFileSize is OptionConverter.toFileSize: a number with an optional KB, MB or GB suffix.
func parseFileSize(s string, def int64) int64 {
	s = strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for suffix, m := range map[string]int64{"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30} {
		if strings.HasSuffix(s, suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, suffix)), m
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return def
	}
	return n * mult
}

// newAppender builds an appender from its configuration; stdout and stderr are the console's
// targets. An appender log4j would fail to build is reported in log4j's words and skipped.
func newAppender(ac *AppenderConfig, stdout, stderr io.Writer, now func() time.Time) (Appender, error) {
	var layout Layout
	switch strings.TrimPrefix(ac.Layout, "org.apache.log4j.") {
	case "PatternLayout", "EnhancedPatternLayout":
		pattern := ac.Pattern
		if pattern == "" {
			pattern = "%m%n"
		}
		layout = NewPatternLayout(pattern)
	case "SimpleLayout", "":
		layout = simpleLayout{}
	default:
		return nil, fmt.Errorf("log4j:ERROR Could not instantiate class [%s].", ac.Layout)
	}
	class := strings.TrimPrefix(ac.Class, "org.apache.log4j.")
	switch class {
	case "ConsoleAppender":
		w := stdout
		if strings.EqualFold(ac.Options["Target"], "System.err") {
			w = stderr
		}
		a := &consoleAppender{w: w}
		a.layout, a.threshold = layout, ac.Threshold
		return a, nil
	case "FileAppender", "DailyRollingFileAppender", "RollingFileAppender":
		file := ac.Options["File"]
		if file == "" {
			return nil, fmt.Errorf("log4j:ERROR File option not set for appender [%s].", ac.Name)
		}
		fa, err := openFileAppender(file, !strings.EqualFold(ac.Options["Append"], "false"))
		if err != nil {
			return nil, fmt.Errorf("log4j:ERROR setFile(%s,true) call failed: %v", file, err)
		}
		fa.layout, fa.threshold = layout, ac.Threshold
		if now != nil {
			fa.now = now
		}
		switch class {
		case "DailyRollingFileAppender":
			pattern := ac.Options["DatePattern"]
			if pattern == "" {
				pattern = "'.'yyyy-MM-dd"
			}
			fa.setDatePattern(pattern)
		case "RollingFileAppender":
			fa.maxSize = parseFileSize(ac.Options["MaxFileSize"], 10<<20)
			fa.maxBackups = 1
			if n, err := strconv.Atoi(ac.Options["MaxBackupIndex"]); err == nil {
				fa.maxBackups = n
			}
		}
		return fa, nil
	}
	return nil, fmt.Errorf("log4j:ERROR Could not instantiate class [%s].", ac.Class)
}
