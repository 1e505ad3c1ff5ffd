package config

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
)

// LoadProps reads a java.util.Properties file.
//
// Kafka 0.10.2: kafka.utils.Utils.loadProps (java.util.Properties.load).
func LoadProps(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseProperties(f)
}

// ParseProperties reads java.util.Properties text: '#' and '!' comment lines, key and value
// separated by '=', ':' or whitespace, a trailing backslash continuing the line, and the \t \n \r
// \f \uXXXX escapes. A later key overrides an earlier one.
func ParseProperties(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var logical strings.Builder
	continuing := false
	for sc.Scan() {
		line := sc.Text()
		if continuing {
			line = strings.TrimLeft(line, " \t\f")
		} else {
			line = strings.TrimLeft(line, " \t\f")
			if line == "" || line[0] == '#' || line[0] == '!' {
				continue
			}
		}
		if endsWithOddBackslashes(line) {
			logical.WriteString(line[:len(line)-1])
			continuing = true
			continue
		}
		logical.WriteString(line)
		continuing = false
		k, v, err := splitProperty(logical.String())
		logical.Reset()
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	if continuing && logical.Len() > 0 {
		k, v, err := splitProperty(logical.String())
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, sc.Err()
}

func endsWithOddBackslashes(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func splitProperty(line string) (string, string, error) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	if i > len(line) {
		i = len(line)
	}
	key := line[:i]
	rest := strings.TrimLeft(line[i:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	k, err := unescape(key)
	if err != nil {
		return "", "", err
	}
	v, err := unescape(rest)
	return k, v, err
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", errMalformedUnicode
			}
			n, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", errMalformedUnicode
			}
			b.WriteRune(rune(n))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// errMalformedUnicode is java.util.Properties' IllegalArgumentException text for a bad \u escape.
var errMalformedUnicode = errors.New("Malformed \\uxxxx encoding.")
