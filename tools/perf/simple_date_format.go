package perf

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// simpleDateFormat formats times with a java.text.SimpleDateFormat pattern.
type simpleDateFormat struct{ pattern string }

// newSimpleDateFormat checks the pattern's letters: y M d H h m s S a E are offered.
func newSimpleDateFormat(pattern string) (*simpleDateFormat, error) {
	inQuote := false
	for _, c := range pattern {
		switch {
		case c == '\'':
			inQuote = !inQuote
		case inQuote:
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			if !strings.ContainsRune("yMdHhmsSaE", c) {
				return nil, fmt.Errorf("pattern letter %q of %q is not supported by zkafka", c, pattern)
			}
		}
	}
	return &simpleDateFormat{pattern: pattern}, nil
}

func pad(n, width int) string {
	s := strconv.Itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// format renders t (local time) with the pattern.
func (f *simpleDateFormat) format(t time.Time) string {
	var b strings.Builder
	p := f.pattern
	for i := 0; i < len(p); {
		c := p[i]
		if c == '\'' {
			j := strings.IndexByte(p[i+1:], '\'')
			if j < 0 {
				b.WriteString(p[i+1:])
				break
			}
			if j == 0 {
				b.WriteByte('\'')
			} else {
				b.WriteString(p[i+1 : i+1+j])
			}
			i += j + 2
			continue
		}
		n := 1
		for i+n < len(p) && p[i+n] == c {
			n++
		}
		switch c {
		case 'y':
			if n == 2 {
				b.WriteString(pad(t.Year()%100, 2))
			} else {
				b.WriteString(pad(t.Year(), n))
			}
		case 'M':
			switch {
			case n >= 4:
				b.WriteString(t.Month().String())
			case n == 3:
				b.WriteString(t.Month().String()[:3])
			default:
				b.WriteString(pad(int(t.Month()), n))
			}
		case 'd':
			b.WriteString(pad(t.Day(), n))
		case 'H':
			b.WriteString(pad(t.Hour(), n))
		case 'h':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			b.WriteString(pad(h, n))
		case 'm':
			b.WriteString(pad(t.Minute(), n))
		case 's':
			b.WriteString(pad(t.Second(), n))
		case 'S':
			b.WriteString(pad(t.Nanosecond()/int(time.Millisecond), n))
		case 'a':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'E':
			if n >= 4 {
				b.WriteString(t.Weekday().String())
			} else {
				b.WriteString(t.Weekday().String()[:3])
			}
		default:
			b.WriteString(p[i : i+n])
		}
		i += n
	}
	return b.String()
}
