package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/sirupsen/logrus"
)

// Password is the Go type of a PASSWORD key: its String form is "[hidden]", so a config printed
// or logged never shows the secret; Value returns it.
//
// Kafka 0.10.2: org.apache.kafka.common.config.types.Password.
type Password string

// String hides the value.
func (Password) String() string { return "[hidden]" }

// Value is the secret itself.
func (p Password) Value() string { return string(p) }

// AbstractConfig is a ConfigDef applied to the properties a user supplied: every defined key
// parsed, defaulted and validated once, the originals kept (for plugins and for the unknown-key
// warning), and a way to copy the typed values into a struct of typed fields.
//
// Kafka 0.10.2: org.apache.kafka.common.config.AbstractConfig. Kafka reads values through
// getInt(key) and friends, so a typo in a key is a run-time ConfigException; zkafka instead
// fills one struct field per key once (Fill), checked against the ConfigDef, so a configuration
// type such as KafkaConfig has no string lookups at all.
//
// The pattern for a configuration type (KafkaConfig; the producer and consumer configs follow it):
//
//	type FooConfig struct {
//		*config.AbstractConfig
//		Props FooProps // one field per ConfigDef key, tagged `config:"key"`
//		// values derived from several keys, filled by the constructor
//	}
//
//	func NewFooConfig(props map[string]string) (*FooConfig, error) {
//		ac, err := config.NewAbstractConfig(fooDef, props) // types, defaults, validators
//		if err != nil { return nil, err }                   // a *ConfigException
//		c := &FooConfig{AbstractConfig: ac}
//		if err := ac.Fill(&c.Props); err != nil { return nil, err }
//		return c, c.validate()                              // cross-key checks
//	}
//
// A test calls CheckFields(fooDef, FooProps{}) so that a key without a field, a field without a
// key, or a Go type that does not match the key's type fails in CI, not at a user's startup.
type AbstractConfig struct {
	def       *ConfigDef
	originals map[string]string
	values    map[string]any
}

// NewAbstractConfig parses originals against def: ConfigDef.parse's types, defaults, required
// keys and validators, with Kafka's ConfigException messages. Keys def does not define are kept
// among the originals (see Unknown).
func NewAbstractConfig(def *ConfigDef, originals map[string]string) (*AbstractConfig, error) {
	values, err := def.Parse(originals)
	if err != nil {
		return nil, err
	}
	orig := make(map[string]string, len(originals))
	for k, v := range originals {
		orig[k] = v
	}
	return &AbstractConfig{def: def, originals: orig, values: values}, nil
}

// Originals returns a copy of the supplied properties.
func (c *AbstractConfig) Originals() map[string]string {
	out := make(map[string]string, len(c.originals))
	for k, v := range c.originals {
		out[k] = v
	}
	return out
}

// Unknown returns, sorted, the supplied keys the ConfigDef does not define. Every defined key is
// read when Fill runs, so these are exactly Kafka's unused() keys.
func (c *AbstractConfig) Unknown() []string {
	var out []string
	for k := range c.originals {
		if _, ok := c.def.Key(k); !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// UnusedMessages returns the warning AbstractConfig.logUnused writes for each unknown key, in
// key order: "The configuration 'x' was supplied but isn't a known config.".
func (c *AbstractConfig) UnusedMessages() []string {
	var out []string
	for _, k := range c.Unknown() {
		out = append(out, fmt.Sprintf("The configuration '%s' was supplied but isn't a known config.", k))
	}
	return out
}

// LogString renders AbstractConfig.logAll's block: "<name> values: " and then every defined key,
// sorted, one "\tkey = value" line each (passwords hidden, lists as [a, b], null as null).
func (c *AbstractConfig) LogString(name string) string {
	var b strings.Builder
	b.WriteString(name + " values: \n")
	for _, key := range c.def.SortedNames() {
		fmt.Fprintf(&b, "\t%s = %s\n", key, formatValue(c.values[key]))
	}
	return b.String()
}

func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case []string:
		return "[" + strings.Join(x, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// Fill copies every parsed value into the struct dst points to: the field tagged `config:"key"`
// gets the value of key. Fields of embedded structs are filled too. Fill fails, naming the key,
// when CheckFields would (it is a programming error, which the configuration type's own test
// catches first).
func (c *AbstractConfig) Fill(dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("config: Fill needs a pointer to a struct, not %T", dst)
	}
	fields, err := bindFields(c.def, rv.Elem().Type())
	if err != nil {
		return err
	}
	for key, index := range fields {
		f := rv.Elem().FieldByIndex(index)
		if err := setField(f, c.values[key]); err != nil {
			return fmt.Errorf("config: %s: %w", key, err)
		}
	}
	return nil
}

// CheckFields checks that the struct type of sample has exactly one `config:"key"` field for each
// key of def, none for an undefined key, and that each field's Go type is the one the key's
// ConfigDef type parses to: BOOLEAN bool, STRING and CLASS string, PASSWORD Password, INT int32,
// SHORT int16, LONG int64, DOUBLE float64, LIST []string. A key whose default is null (an optional
// key) has a pointer field, nil when unset; a LIST key stays []string (nil when unset).
func CheckFields(def *ConfigDef, sample any) error {
	t := reflect.TypeOf(sample)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return fmt.Errorf("config: CheckFields needs a struct, not %T", sample)
	}
	_, err := bindFields(def, t)
	return err
}

// bindFields maps each key of def to the index of its field in t.
func bindFields(def *ConfigDef, t reflect.Type) (map[string][]int, error) {
	out := map[string][]int{}
	var walk func(t reflect.Type, prefix []int) error
	walk = func(t reflect.Type, prefix []int) error {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			index := append(append([]int(nil), prefix...), i)
			key, tagged := f.Tag.Lookup("config")
			if !tagged {
				if f.Anonymous && f.Type.Kind() == reflect.Struct {
					if err := walk(f.Type, index); err != nil {
						return err
					}
				}
				continue
			}
			k, ok := def.Key(key)
			if !ok {
				return fmt.Errorf("config: field %s.%s names %q, which the ConfigDef does not define", t.Name(), f.Name, key)
			}
			if _, dup := out[key]; dup {
				return fmt.Errorf("config: key %q has two fields in %s", key, t.Name())
			}
			if !f.IsExported() {
				return fmt.Errorf("config: field %s.%s for %q is not exported", t.Name(), f.Name, key)
			}
			if want := goType(k); f.Type != want {
				return fmt.Errorf("config: field %s.%s for %q (%s) is %s, want %s", t.Name(), f.Name, key, k.Type, f.Type, want)
			}
			out[key] = index
		}
		return nil
	}
	if err := walk(t, nil); err != nil {
		return nil, err
	}
	var missing []string
	for _, k := range def.Keys() {
		if _, ok := out[k.Name]; !ok {
			missing = append(missing, k.Name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("config: %s has no field for %s", t.Name(), strings.Join(missing, ", "))
	}
	return out, nil
}

var goTypes = [...]reflect.Type{
	BOOLEAN:  reflect.TypeOf(false),
	STRING:   reflect.TypeOf(""),
	INT:      reflect.TypeOf(int32(0)),
	SHORT:    reflect.TypeOf(int16(0)),
	LONG:     reflect.TypeOf(int64(0)),
	DOUBLE:   reflect.TypeOf(float64(0)),
	LIST:     reflect.TypeOf([]string(nil)),
	CLASS:    reflect.TypeOf(""),
	PASSWORD: reflect.TypeOf(Password("")),
}

// goType is the field type of a key: its value type, behind a pointer for an optional scalar.
func goType(k *ConfigKey) reflect.Type {
	t := goTypes[k.Type]
	if k.Default == nil && k.Type != LIST {
		return reflect.PointerTo(t)
	}
	return t
}

func setField(f reflect.Value, v any) error {
	if v == nil {
		f.Set(reflect.Zero(f.Type()))
		return nil
	}
	val := reflect.ValueOf(v)
	if f.Kind() == reflect.Pointer {
		p := reflect.New(f.Type().Elem())
		if !val.Type().AssignableTo(p.Elem().Type()) {
			return fmt.Errorf("value of type %s for a %s field", val.Type(), f.Type())
		}
		p.Elem().Set(val)
		f.Set(p)
		return nil
	}
	if !val.Type().AssignableTo(f.Type()) {
		return fmt.Errorf("value of type %s for a %s field", val.Type(), f.Type())
	}
	f.Set(val)
	return nil
}

// LogAll logs "<Title> values:" with every key def defines, in name order (passwords hidden,
// lists in brackets, unset keys as null), then a warning for each supplied key def does not know.
//
// Kafka 0.10.2: AbstractConfig.logAll and the unknown-key warning of AbstractConfig.logUnused,
// shared by the producer's and the consumer's configs, whose values are parsed maps.
func LogAll(log *logrus.Entry, title string, def *ConfigDef, values map[string]any, originals map[string]string) {
	var b strings.Builder
	b.WriteString(title + " values: \n")
	for _, name := range def.SortedNames() {
		v := values[name]
		k, _ := def.Key(name)
		switch {
		case v == nil:
			v = "null"
		case k.Type == PASSWORD:
			v = "[hidden]"
		case k.Type == LIST:
			v = "[" + strings.Join(v.([]string), ", ") + "]"
		}
		fmt.Fprintf(&b, "\t%s = %v\n", name, v)
	}
	log.Info(b.String())
	var unknown []string
	for k := range originals {
		if _, ok := def.Key(k); !ok {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		log.Warnf("The configuration '%s' was supplied but isn't a known config.", k)
	}
}
