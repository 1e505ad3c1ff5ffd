package security

import (
	"fmt"
	"os"
	"strings"
	"unicode"
)

// JaasLoginConfigProp is the Java system property naming the JAAS file
// (-Djava.security.auth.login.config=FILE, passed by Kafka's scripts through KAFKA_OPTS).
const JaasLoginConfigProp = "java.security.auth.login.config"

// JaasServerContext is the JAAS section a broker logs in with.
//
// Kafka 0.10.2: JaasUtils.LOGIN_CONTEXT_SERVER.
const JaasServerContext = "KafkaServer"

// PlainLoginModule is the login module whose user_<name> options list the PLAIN users.
const PlainLoginModule = "org.apache.kafka.common.security.plain.PlainLoginModule"

// ScramLoginModule is the SCRAM login module (its options are the client's username/password).
const ScramLoginModule = "org.apache.kafka.common.security.scram.ScramLoginModule"

// AppConfigurationEntry is one login module line of a JAAS section: the module's class name, its
// control flag and its options.
//
// Kafka 0.10.2: javax.security.auth.login.AppConfigurationEntry as JAAS's ConfigFile builds it.
type AppConfigurationEntry struct {
	LoginModuleName string
	ControlFlag     string // required, requisite, sufficient or optional (lower case)
	Options         map[string]string
}

// JaasConfig is a parsed JAAS file: its sections by name, each a list of login module entries.
type JaasConfig map[string][]AppConfigurationEntry

// ConfigEntryOption is the value of option key in the first entry of section whose module is
// loginModule (JaasUtils/JaasContext.configEntryOption); "" and false when absent.
func (c JaasConfig) ConfigEntryOption(section, key, loginModule string) (string, bool) {
	for _, e := range c[section] {
		if loginModule != "" && e.LoginModuleName != loginModule {
			continue
		}
		if v, ok := e.Options[key]; ok {
			return v, true
		}
	}
	return "", false
}

// JaasFileFromOpts finds -Djava.security.auth.login.config=FILE (or ==FILE) in a KAFKA_OPTS
// value; "" when it is not there.
func JaasFileFromOpts(opts string) string {
	prefix := "-D" + JaasLoginConfigProp + "="
	for _, f := range strings.Fields(opts) {
		if strings.HasPrefix(f, prefix) {
			v := strings.TrimPrefix(f, prefix)
			v = strings.TrimPrefix(v, "=") // "==FILE" replaces rather than adds in Java: one file either way
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// LoadJaasConfig reads and parses the JAAS file at path.
func LoadJaasConfig(path string) (JaasConfig, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("Configuration Error: %v", err)
	}
	return ParseJaasConfig(string(b))
}

// jaasLexer splits a JAAS file into tokens as JAAS's ConfigFile reads it with a StreamTokenizer:
// words, double- or single-quoted strings (backslash escapes), the characters { } ; =, and the
// comments // and /* */ skipped.
type jaasLexer struct {
	s    string
	pos  int
	line int
}

type jaasToken struct {
	text   string
	quoted bool
	eof    bool
}

func isJaasWordChar(r byte) bool {
	return r < 0x80 && (unicode.IsLetter(rune(r)) || unicode.IsDigit(rune(r)) || strings.IndexByte("._$-:/\\+@*#?!%&~[]()<>^|,", r) >= 0)
}

func (l *jaasLexer) next() (jaasToken, error) {
	for l.pos < len(l.s) {
		c := l.s[l.pos]
		switch {
		case c == '\n':
			l.line++
			l.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			l.pos++
		case strings.HasPrefix(l.s[l.pos:], "//"):
			for l.pos < len(l.s) && l.s[l.pos] != '\n' {
				l.pos++
			}
		case strings.HasPrefix(l.s[l.pos:], "/*"):
			end := strings.Index(l.s[l.pos+2:], "*/")
			if end < 0 {
				return jaasToken{}, fmt.Errorf("Configuration Error: Line %d: unterminated comment", l.line)
			}
			l.line += strings.Count(l.s[l.pos:l.pos+2+end], "\n")
			l.pos += end + 4
		case c == '"' || c == '\'':
			var b strings.Builder
			l.pos++
			for {
				if l.pos >= len(l.s) {
					return jaasToken{}, fmt.Errorf("Configuration Error: Line %d: unterminated quoted string", l.line)
				}
				d := l.s[l.pos]
				l.pos++
				if d == c {
					break
				}
				if d == '\\' && l.pos < len(l.s) {
					d = l.s[l.pos]
					l.pos++
				}
				if d == '\n' {
					l.line++
				}
				b.WriteByte(d)
			}
			return jaasToken{text: b.String(), quoted: true}, nil
		case c == '{' || c == '}' || c == ';' || c == '=':
			l.pos++
			return jaasToken{text: string(c)}, nil
		case isJaasWordChar(c) || c >= 0x80:
			start := l.pos
			for l.pos < len(l.s) && (isJaasWordChar(l.s[l.pos]) || l.s[l.pos] >= 0x80) && !strings.HasPrefix(l.s[l.pos:], "//") && !strings.HasPrefix(l.s[l.pos:], "/*") {
				l.pos++
			}
			return jaasToken{text: l.s[start:l.pos]}, nil
		default:
			return jaasToken{}, fmt.Errorf("Configuration Error: Line %d: unexpected character [%c]", l.line, c)
		}
	}
	return jaasToken{eof: true}, nil
}

// ParseJaasConfig parses a JAAS file:
//
//	KafkaServer {
//	    org.apache.kafka.common.security.plain.PlainLoginModule required
//	    username="admin" password="admin-secret"
//	    user_admin="admin-secret";
//	};
//
// Errors carry JAAS's "Configuration Error: Line N: expected [x], found [y]" form.
func ParseJaasConfig(text string) (JaasConfig, error) {
	l := &jaasLexer{s: text, line: 1}
	cfg := JaasConfig{}
	tok, err := l.next()
	expect := func(want string) error {
		t, err := l.next()
		if err != nil {
			return err
		}
		if t.eof || t.text != want || t.quoted {
			return fmt.Errorf("Configuration Error: Line %d: expected [%s], found [%s]", l.line, want, found(t))
		}
		return nil
	}
	for ; err == nil && !tok.eof; tok, err = l.next() {
		if tok.quoted || len(tok.text) == 1 && strings.Contains("{};=", tok.text) {
			return nil, fmt.Errorf("Configuration Error: Line %d: expected [login context name], found [%s]", l.line, found(tok))
		}
		name := tok.text
		if err := expect("{"); err != nil {
			return nil, err
		}
		var entries []AppConfigurationEntry
		for {
			t, err := l.next()
			if err != nil {
				return nil, err
			}
			if t.eof {
				return nil, fmt.Errorf("Configuration Error: Line %d: expected [}], found [end of file]", l.line)
			}
			if t.text == "}" && !t.quoted {
				break
			}
			e, err := parseJaasEntry(l, t)
			if err != nil {
				return nil, err
			}
			entries = append(entries, e)
		}
		if err := expect(";"); err != nil {
			return nil, err
		}
		cfg[name] = append(cfg[name], entries...)
	}
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

func found(t jaasToken) string {
	if t.eof {
		return "end of file"
	}
	return t.text
}

func parseJaasEntry(l *jaasLexer, module jaasToken) (AppConfigurationEntry, error) {
	e := AppConfigurationEntry{LoginModuleName: module.text, Options: map[string]string{}}
	flag, err := l.next()
	if err != nil {
		return e, err
	}
	switch f := strings.ToLower(flag.text); f {
	case "required", "requisite", "sufficient", "optional":
		e.ControlFlag = f
	default:
		return e, fmt.Errorf("Configuration Error: Line %d: Invalid control flag, %s", l.line, found(flag))
	}
	for {
		key, err := l.next()
		if err != nil {
			return e, err
		}
		if key.text == ";" && !key.quoted {
			return e, nil
		}
		if key.eof || key.quoted || key.text == "{" || key.text == "}" || key.text == "=" {
			return e, fmt.Errorf("Configuration Error: Line %d: expected [option key], found [%s]", l.line, found(key))
		}
		eq, err := l.next()
		if err != nil {
			return e, err
		}
		if eq.text != "=" || eq.quoted {
			return e, fmt.Errorf("Configuration Error: Line %d: expected [=], found [%s]", l.line, found(eq))
		}
		val, err := l.next()
		if err != nil {
			return e, err
		}
		if val.eof || !val.quoted && len(val.text) == 1 && strings.Contains("{};=", val.text) {
			return e, fmt.Errorf("Configuration Error: Line %d: expected [option value], found [%s]", l.line, found(val))
		}
		e.Options[key.text] = val.text
	}
}
