package config

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Type is a ConfigDef value type.
//
// Kafka 0.10.2: org.apache.kafka.common.config.ConfigDef.Type.
type Type int

// The value types of 0.10.2's ConfigDef.
const (
	BOOLEAN Type = iota
	STRING
	INT
	SHORT
	LONG
	DOUBLE
	LIST
	CLASS
	PASSWORD
)

var typeNames = [...]string{"BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE", "LIST", "CLASS", "PASSWORD"}

func (t Type) String() string { return typeNames[t] }

// Importance is documentation only, as in Kafka.
type Importance int

// Importance levels.
const (
	HIGH Importance = iota
	MEDIUM
	LOW
)

// NoDefault marks a required key (ConfigDef.NO_DEFAULT_VALUE).
var NoDefault = &struct{ noDefault bool }{true}

// Validator checks a parsed value; its error message follows Kafka's wording.
//
// Kafka 0.10.2: ConfigDef.Validator.
type Validator func(name string, value any) error

// ConfigKey is one defined key.
//
// Kafka 0.10.2: ConfigDef.ConfigKey.
type ConfigKey struct {
	Name       string
	Type       Type
	Default    any // nil = optional with null default; NoDefault = required; else a value of Type's Go type
	Validator  Validator
	Importance Importance
	Doc        string
}

// ConfigDef is an ordered set of key definitions.
//
// Kafka 0.10.2: org.apache.kafka.common.config.ConfigDef.
type ConfigDef struct {
	keys  map[string]*ConfigKey
	order []string
}

// NewConfigDef returns an empty definition set.
func NewConfigDef() *ConfigDef { return &ConfigDef{keys: map[string]*ConfigKey{}} }

// Define adds a key. Default is given as a string (as Kafka's docs show it), "" meaning empty
// string, or as nil (null default) or NoDefault (required). It panics on a programming error
// (duplicate key or an unparsable default), never on user input.
func (d *ConfigDef) Define(name string, typ Type, def any, v Validator, imp Importance, doc string) *ConfigDef {
	if _, dup := d.keys[name]; dup {
		panic("config: key defined twice: " + name)
	}
	k := &ConfigKey{Name: name, Type: typ, Validator: v, Importance: imp, Doc: doc}
	switch dv := def.(type) {
	case nil:
	case string:
		pv, err := ParseType(name, dv, typ)
		if err != nil {
			panic("config: bad default for " + name + ": " + err.Error())
		}
		k.Default = pv
	default:
		k.Default = def
	}
	d.keys[name] = k
	d.order = append(d.order, name)
	return d
}

// Keys returns the definitions in definition order.
func (d *ConfigDef) Keys() []*ConfigKey {
	out := make([]*ConfigKey, 0, len(d.order))
	for _, n := range d.order {
		out = append(out, d.keys[n])
	}
	return out
}

// Key returns one definition.
func (d *ConfigDef) Key(name string) (*ConfigKey, bool) { k, ok := d.keys[name]; return k, ok }

// Parse turns raw properties into typed values for every defined key (defaults filled in, nil for
// null defaults), validating each. Unknown keys are kept out of the result but are not errors, as
// the broker accepts them silently.
func (d *ConfigDef) Parse(props map[string]string) (map[string]any, error) {
	out := make(map[string]any, len(d.keys))
	for _, name := range d.order {
		k := d.keys[name]
		var v any
		if raw, ok := props[name]; ok {
			pv, err := ParseType(name, raw, k.Type)
			if err != nil {
				return nil, err
			}
			v = pv
		} else if k.Default == NoDefault {
			return nil, &ConfigException{Msg: fmt.Sprintf("Missing required configuration \"%s\" which has no default value.", name)}
		} else {
			v = k.Default
		}
		if k.Validator != nil && v != nil {
			if err := k.Validator(name, v); err != nil {
				return nil, err
			}
		}
		out[name] = v
	}
	return out, nil
}

// ConfigException is Kafka's ConfigException: a message an operator reads.
//
// Kafka 0.10.2: org.apache.kafka.common.config.ConfigException.
type ConfigException struct{ Msg string }

func (e *ConfigException) Error() string { return e.Msg }

func invalid(name string, value any, msg string) error {
	return &ConfigException{Msg: fmt.Sprintf("Invalid value %v for configuration %s: %s", value, name, msg)}
}

var listSplit = regexp.MustCompile(`\s*,\s*`)

// ParseType parses one trimmed string value as typ, with ConfigDef.parseType's messages.
// Go types: BOOLEAN bool, STRING/CLASS string, PASSWORD Password, INT int32, SHORT int16, LONG int64,
// DOUBLE float64, LIST []string.
func ParseType(name, value string, typ Type) (any, error) {
	trimmed := strings.TrimSpace(value)
	switch typ {
	case BOOLEAN:
		switch strings.ToLower(trimmed) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, invalid(name, value, "Expected value to be either true or false")
	case STRING, CLASS:
		return trimmed, nil
	case PASSWORD:
		return Password(trimmed), nil
	case INT:
		n, err := strconv.ParseInt(trimmed, 10, 32)
		if err != nil {
			return nil, invalid(name, value, "Not a number of type INT")
		}
		return int32(n), nil
	case SHORT:
		n, err := strconv.ParseInt(trimmed, 10, 16)
		if err != nil {
			return nil, invalid(name, value, "Not a number of type SHORT")
		}
		return int16(n), nil
	case LONG:
		n, err := strconv.ParseInt(trimmed, 10, 64)
		if err != nil {
			return nil, invalid(name, value, "Not a number of type LONG")
		}
		return n, nil
	case DOUBLE:
		f, err := strconv.ParseFloat(trimmed, 64)
		if err != nil || math.IsNaN(f) {
			return nil, invalid(name, value, "Not a number of type DOUBLE")
		}
		return f, nil
	case LIST:
		if trimmed == "" {
			return []string{}, nil
		}
		return listSplit.Split(trimmed, -1), nil
	}
	return nil, invalid(name, value, "unknown type")
}

// AtLeast is ConfigDef.Range.atLeast.
func AtLeast(min float64) Validator {
	return func(name string, v any) error {
		if f, ok := toFloat(v); ok && f < min {
			return invalid(name, v, "Value must be at least "+strconv.FormatFloat(min, 'f', -1, 64))
		}
		return nil
	}
}

// Between is ConfigDef.Range.between.
func Between(min, max float64) Validator {
	return func(name string, v any) error {
		f, ok := toFloat(v)
		if ok && f < min {
			return invalid(name, v, "Value must be at least "+strconv.FormatFloat(min, 'f', -1, 64))
		}
		if ok && f > max {
			return invalid(name, v, "Value must be no more than "+strconv.FormatFloat(max, 'f', -1, 64))
		}
		return nil
	}
}

// ValidString is ConfigDef.ValidString.in.
func ValidString(allowed ...string) Validator {
	return func(name string, v any) error {
		s, _ := v.(string)
		for _, a := range allowed {
			if s == a {
				return nil
			}
		}
		return invalid(name, v, "String must be one of: "+strings.Join(allowed, ", "))
	}
}

// ValidList is ConfigDef.ValidList.in: every element must be allowed.
func ValidList(allowed ...string) Validator {
	return func(name string, v any) error {
		list, _ := v.([]string)
		for _, e := range list {
			ok := false
			for _, a := range allowed {
				ok = ok || e == a
			}
			if !ok {
				return invalid(name, e, "String must be one of: "+strings.Join(allowed, ", "))
			}
		}
		return nil
	}
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int16:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// SortedNames returns the defined key names in sorted order (as KafkaConfig logs them at startup).
func (d *ConfigDef) SortedNames() []string {
	names := append([]string(nil), d.order...)
	sort.Strings(names)
	return names
}

// DefineClientSecurity defines the SSL and SASL keys a Java client's configuration carries, so
// that a producer or consumer configuration written for a Java client is read; zkafka's own
// clients speak PLAINTEXT only, which their security.protocol key enforces.
//
// Kafka 0.10.2: ConfigDef.withClientSslSupport and withClientSaslSupport, shared by
// ProducerConfig and ConsumerConfig.
func DefineClientSecurity(d *ConfigDef) {
	str := func(name string, def any) {
		d.Define(name, STRING, def, nil, LOW, "SSL/SASL (not supported by zkafka's clients)")
	}
	for _, n := range []string{"ssl.keystore.password", "ssl.key.password", "ssl.truststore.password", "sasl.jaas.config"} {
		d.Define(n, PASSWORD, nil, nil, LOW, "SSL/SASL (not supported)")
	}
	str("ssl.protocol", "TLS")
	str("ssl.provider", nil)
	d.Define("ssl.cipher.suites", LIST, nil, nil, LOW, "SSL (not supported)")
	d.Define("ssl.enabled.protocols", LIST, "TLSv1.2,TLSv1.1,TLSv1", nil, LOW, "SSL (not supported)")
	str("ssl.keystore.type", "JKS")
	str("ssl.keystore.location", nil)
	str("ssl.truststore.type", "JKS")
	str("ssl.truststore.location", nil)
	str("ssl.keymanager.algorithm", "SunX509")
	str("ssl.trustmanager.algorithm", "PKIX")
	str("ssl.endpoint.identification.algorithm", nil)
	str("ssl.secure.random.implementation", nil)
	str("sasl.kerberos.service.name", nil)
	str("sasl.kerberos.kinit.cmd", "/usr/bin/kinit")
	d.Define("sasl.kerberos.ticket.renew.window.factor", DOUBLE, "0.8", nil, LOW, "SASL (not supported)")
	d.Define("sasl.kerberos.ticket.renew.jitter", DOUBLE, "0.05", nil, LOW, "SASL (not supported)")
	d.Define("sasl.kerberos.min.time.before.relogin", LONG, "60000", nil, LOW, "SASL (not supported)")
	str("sasl.mechanism", "GSSAPI")
}
