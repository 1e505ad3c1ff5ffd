package log4j

import (
	"fmt"
	"os"
	"sort"
	"strings"

	kconfig "github.com/zkafka/zkafka/clients/config"
)

// Level is a log4j level; a lower value is more verbose.
type Level int

// The levels of log4j 1.2, in order.
const (
	ALL Level = iota
	TRACE
	DEBUG
	INFO
	WARN
	ERROR
	FATAL
	OFF
)

var levelNames = [...]string{"ALL", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF"}

func (l Level) String() string { return levelNames[l] }

// ParseLevel parses a level name, case-insensitively (Level.toLevel).
func ParseLevel(s string) (Level, bool) {
	for i, n := range levelNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Level(i), true
		}
	}
	return 0, false
}

// LoggerConfig is one log4j.logger.<name> (or log4j.rootLogger) line and its additivity.
type LoggerConfig struct {
	Level      *Level // nil: inherited from the parent
	Appenders  []string
	Additivity bool
}

// AppenderConfig is a log4j.appender.<name> and its options.
type AppenderConfig struct {
	Name      string
	Class     string
	Options   map[string]string // File, DatePattern, Target, Append, MaxFileSize, MaxBackupIndex
	Threshold Level
	Layout    string // layout class
	Pattern   string // ConversionPattern
}

// Config is a parsed log4j.properties: the root logger, the named loggers and the appenders.
//
// Kafka 0.10.2: config/log4j.properties, as log4j 1.2's PropertyConfigurator reads it.
type Config struct {
	Root      LoggerConfig
	Loggers   map[string]*LoggerConfig
	Appenders map[string]*AppenderConfig
	// Warnings are log4j's complaints about the file ("log4j:WARN ..."), for stderr.
	Warnings []string
}

// LoadConfig reads a log4j.properties file; ${name} is replaced by the system property name (from
// sysProps, e.g. kafka.logs.dir) or else by the property of that name in the file.
func LoadConfig(path string, sysProps map[string]string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	props, err := kconfig.ParseProperties(f)
	if err != nil {
		return nil, err
	}
	return ParseConfig(props, sysProps), nil
}

// ParseConfig builds a Config from properties (PropertyConfigurator.doConfigure).
func ParseConfig(props, sysProps map[string]string) *Config {
	c := &Config{Loggers: map[string]*LoggerConfig{}, Appenders: map[string]*AppenderConfig{}}
	get := func(key string) string { return c.substitute(props[key], props, sysProps) }
	debug := DEBUG
	c.Root = LoggerConfig{Level: &debug, Additivity: true}
	if v, ok := props["log4j.rootLogger"]; ok {
		c.parseLogger(&c.Root, c.substitute(v, props, sysProps), true)
	} else if v, ok := props["log4j.rootCategory"]; ok {
		c.parseLogger(&c.Root, c.substitute(v, props, sysProps), true)
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var name string
		switch {
		case strings.HasPrefix(k, "log4j.logger."):
			name = strings.TrimPrefix(k, "log4j.logger.")
		case strings.HasPrefix(k, "log4j.category."):
			name = strings.TrimPrefix(k, "log4j.category.")
		default:
			continue
		}
		lc := c.logger(name)
		c.parseLogger(lc, get(k), false)
	}
	for _, k := range keys {
		if name, ok := strings.CutPrefix(k, "log4j.additivity."); ok {
			c.logger(name).Additivity = !strings.EqualFold(strings.TrimSpace(get(k)), "false")
		}
	}
	// Appenders named by a logger are built from their options; an unnamed one is ignored.
	for _, lc := range append([]*LoggerConfig{&c.Root}, c.loggerList()...) {
		for _, a := range lc.Appenders {
			if _, done := c.Appenders[a]; done {
				continue
			}
			class, ok := props["log4j.appender."+a]
			if !ok {
				c.Warnings = append(c.Warnings, fmt.Sprintf("log4j:ERROR Could not find value for key log4j.appender.%s", a),
					fmt.Sprintf("log4j:ERROR Could not instantiate appender named \"%s\".", a))
				continue
			}
			ac := &AppenderConfig{Name: a, Class: strings.TrimSpace(c.substitute(class, props, sysProps)), Options: map[string]string{}}
			prefix := "log4j.appender." + a + "."
			for _, k := range keys {
				opt, ok := strings.CutPrefix(k, prefix)
				if !ok {
					continue
				}
				v := get(k)
				switch {
				case opt == "layout":
					ac.Layout = strings.TrimSpace(v)
				case opt == "layout.ConversionPattern":
					ac.Pattern = v
				case opt == "Threshold":
					if l, ok := ParseLevel(v); ok {
						ac.Threshold = l
					}
				default:
					ac.Options[opt] = strings.TrimSpace(v)
				}
			}
			c.Appenders[a] = ac
		}
	}
	return c
}

func (c *Config) logger(name string) *LoggerConfig {
	lc, ok := c.Loggers[name]
	if !ok {
		lc = &LoggerConfig{Additivity: true}
		c.Loggers[name] = lc
	}
	return lc
}

func (c *Config) loggerList() []*LoggerConfig {
	names := make([]string, 0, len(c.Loggers))
	for n := range c.Loggers {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*LoggerConfig, len(names))
	for i, n := range names {
		out[i] = c.Loggers[n]
	}
	return out
}

// parseLogger reads "LEVEL, appender, appender" (OptionConverter's level then appender names; an
// empty level or INHERITED keeps the inherited level, except on the root).
func (c *Config) parseLogger(lc *LoggerConfig, v string, root bool) {
	parts := strings.Split(v, ",")
	lvl := strings.TrimSpace(parts[0])
	switch {
	case lvl == "":
	case strings.EqualFold(lvl, "INHERITED") || strings.EqualFold(lvl, "NULL"):
		if !root {
			lc.Level = nil
		}
	default:
		if l, ok := ParseLevel(lvl); ok {
			lc.Level = &l
		} else {
			c.Warnings = append(c.Warnings, fmt.Sprintf("log4j:WARN Unknown level %q; using DEBUG.", lvl))
			d := DEBUG
			lc.Level = &d
		}
	}
	lc.Appenders = nil
	for _, a := range parts[1:] {
		if a = strings.TrimSpace(a); a != "" {
			lc.Appenders = append(lc.Appenders, a)
		}
	}
}

// substitute replaces ${key} from sysProps, then props (OptionConverter.substVars); an unknown
// key becomes "".
func (c *Config) substitute(v string, props, sysProps map[string]string) string {
	var b strings.Builder
	for depth := 0; ; depth++ {
		i := strings.Index(v, "${")
		if i < 0 || depth > 20 {
			b.WriteString(v)
			return b.String()
		}
		j := strings.Index(v[i:], "}")
		if j < 0 {
			b.WriteString(v)
			return b.String()
		}
		key := v[i+2 : i+j]
		b.WriteString(v[:i])
		val, ok := sysProps[key]
		if !ok {
			val = props[key]
		}
		b.WriteString(val)
		v = v[i+j+1:]
	}
}

// DefaultConsoleConfig is what the broker uses without a readable configuration file: the root
// logger at INFO on stdout, with Kafka's layout.
func DefaultConsoleConfig() *Config {
	return ParseConfig(map[string]string{
		"log4j.rootLogger":                               "INFO, stdout",
		"log4j.appender.stdout":                          "org.apache.log4j.ConsoleAppender",
		"log4j.appender.stdout.layout":                   "org.apache.log4j.PatternLayout",
		"log4j.appender.stdout.layout.ConversionPattern": "[%d] %p %m (%c)%n",
	}, nil)
}
