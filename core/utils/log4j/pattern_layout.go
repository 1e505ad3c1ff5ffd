package log4j

import (
	"strconv"
	"strings"
	"time"
)

// Event is one log line before layout: what log4j's LoggingEvent carries and the layout reads.
type Event struct {
	Time      time.Time
	Level     Level
	Logger    string // log4j logger name
	Message   string // rendered message
	Throwable string // printed on the lines after the layout's output, as log4j prints a throwable
}

// Layout turns an event into text.
type Layout interface {
	Format(e *Event) string
}

// PatternLayout is log4j's PatternLayout: literal text and %conversions, each with optional
// alignment (%-5p), minimum width (%5p) and maximum width (%.30c) modifiers.
//
// Conversions: %d (ISO8601, or %d{ISO8601}, %d{ABSOLUTE}, %d{DATE}, %d{SimpleDateFormat pattern}),
// %p level, %m message, %c logger (%c{n}: its last n components), %n newline, %r milliseconds since
// start, %t thread ("main"), %%; location conversions print "?" and %x, %X nothing.
type PatternLayout struct {
	parts []patternPart
	start time.Time
}

type patternPart struct {
	literal  string
	conv     byte // 0 for a literal
	leftJust bool
	min, max int
	option   string
	dateFmt  *dateFormat
}

// NewPatternLayout parses a ConversionPattern.
func NewPatternLayout(pattern string) *PatternLayout {
	pl := &PatternLayout{start: time.Now()}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			pl.parts = append(pl.parts, patternPart{literal: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(pattern); i++ {
		ch := pattern[i]
		if ch != '%' || i+1 >= len(pattern) {
			lit.WriteByte(ch)
			continue
		}
		i++
		if pattern[i] == '%' {
			lit.WriteByte('%')
			continue
		}
		p := patternPart{max: -1}
		if pattern[i] == '-' {
			p.leftJust = true
			i++
		}
		for i < len(pattern) && pattern[i] >= '0' && pattern[i] <= '9' {
			p.min = p.min*10 + int(pattern[i]-'0')
			i++
		}
		if i < len(pattern) && pattern[i] == '.' {
			i++
			p.max = 0
			for i < len(pattern) && pattern[i] >= '0' && pattern[i] <= '9' {
				p.max = p.max*10 + int(pattern[i]-'0')
				i++
			}
		}
		if i >= len(pattern) {
			break
		}
		p.conv = pattern[i]
		if i+1 < len(pattern) && pattern[i+1] == '{' {
			if end := strings.IndexByte(pattern[i+1:], '}'); end > 0 {
				p.option = pattern[i+2 : i+1+end]
				i += 1 + end
			}
		}
		if p.conv == 'n' {
			lit.WriteByte('\n')
			continue
		}
		if p.conv == 'd' {
			p.dateFmt = dateFormatFor(p.option)
		}
		flush()
		pl.parts = append(pl.parts, p)
	}
	flush()
	return pl
}

// Format implements Layout.
func (pl *PatternLayout) Format(e *Event) string {
	var b strings.Builder
	for _, p := range pl.parts {
		if p.conv == 0 {
			b.WriteString(p.literal)
			continue
		}
		var s string
		switch p.conv {
		case 'd':
			s = p.dateFmt.format(e.Time)
		case 'p':
			s = e.Level.String()
		case 'm':
			s = e.Message
		case 'c':
			s = abbreviate(e.Logger, p.option)
		case 'r':
			s = strconv.FormatInt(e.Time.Sub(pl.start).Milliseconds(), 10)
		case 't':
			s = "main"
		case 'C', 'F', 'L', 'M', 'l':
			s = "?"
		}
		if p.max >= 0 && len(s) > p.max {
			s = s[len(s)-p.max:] // log4j keeps the end of the text
		}
		if pad := p.min - len(s); pad > 0 {
			if p.leftJust {
				s += strings.Repeat(" ", pad)
			} else {
				s = strings.Repeat(" ", pad) + s
			}
		}
		b.WriteString(s)
	}
	return b.String()
}

// abbreviate is %c{n}: the last n dot-separated components of a logger name.
func abbreviate(name, option string) string {
	n, err := strconv.Atoi(option)
	if err != nil || n <= 0 {
		return name
	}
	parts := strings.Split(name, ".")
	if len(parts) <= n {
		return name
	}
	return strings.Join(parts[len(parts)-n:], ".")
}

// simpleLayout is log4j's SimpleLayout: "LEVEL - message".
type simpleLayout struct{}

func (simpleLayout) Format(e *Event) string { return e.Level.String() + " - " + e.Message + "\n" }

// dateFormat renders a subset of java.text.SimpleDateFormat: quoted literals and the letters
// y M d H h m s S a E, repeated for width (MMM is the month's short name, EEE the day's).
type dateFormat struct{ tokens []dateToken }

type dateToken struct {
	letter byte // 0: literal
	count  int
	text   string
}

func dateFormatFor(option string) *dateFormat {
	switch option {
	case "", "ISO8601":
		return newDateFormat("yyyy-MM-dd HH:mm:ss,SSS")
	case "ABSOLUTE":
		return newDateFormat("HH:mm:ss,SSS")
	case "DATE":
		return newDateFormat("dd MMM yyyy HH:mm:ss,SSS")
	}
	return newDateFormat(option)
}

func newDateFormat(pattern string) *dateFormat {
	df := &dateFormat{}
	for i := 0; i < len(pattern); {
		ch := pattern[i]
		switch {
		case ch == '\'':
			end := strings.IndexByte(pattern[i+1:], '\'')
			if end < 0 {
				df.tokens = append(df.tokens, dateToken{text: pattern[i+1:]})
				return df
			}
			text := pattern[i+1 : i+1+end]
			if end == 0 {
				text = "'"
			}
			df.tokens = append(df.tokens, dateToken{text: text})
			i += end + 2
		case strings.IndexByte("yMdHhmsSaE", ch) >= 0:
			n := 1
			for i+n < len(pattern) && pattern[i+n] == ch {
				n++
			}
			df.tokens = append(df.tokens, dateToken{letter: ch, count: n})
			i += n
		default:
			df.tokens = append(df.tokens, dateToken{text: string(ch)})
			i++
		}
	}
	return df
}

func (df *dateFormat) format(t time.Time) string {
	var b strings.Builder
	num := func(v, width int) {
		s := strconv.Itoa(v)
		for i := len(s); i < width; i++ {
			b.WriteByte('0')
		}
		b.WriteString(s)
	}
	for _, tok := range df.tokens {
		switch tok.letter {
		case 0:
			b.WriteString(tok.text)
		case 'y':
			if tok.count == 2 {
				num(t.Year()%100, 2)
			} else {
				num(t.Year(), tok.count)
			}
		case 'M':
			if tok.count >= 3 {
				b.WriteString(t.Month().String()[:3])
			} else {
				num(int(t.Month()), tok.count)
			}
		case 'd':
			num(t.Day(), tok.count)
		case 'H':
			num(t.Hour(), tok.count)
		case 'h':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			num(h, tok.count)
		case 'm':
			num(t.Minute(), tok.count)
		case 's':
			num(t.Second(), tok.count)
		case 'S':
			num(t.Nanosecond()/int(time.Millisecond), tok.count)
		case 'a':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'E':
			b.WriteString(t.Weekday().String()[:3])
		}
	}
	return b.String()
}
