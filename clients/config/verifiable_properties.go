package config

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sirupsen/logrus"
)

// VerifiableProperties reads typed values out of a property map the way the Scala clients'
// configs do (ConsumerConfig, ProducerConfig of the old clients), remembering which keys were
// asked for so that Verify can warn about the others.
//
// Kafka 0.10.2: kafka.utils.VerifiableProperties. Scala throws at the first bad value
// (NumberFormatException, IllegalArgumentException "requirement failed: ..."); here the first
// error is kept and reported by Err, so a config constructor reads all its keys and checks once,
// with Kafka's message.
type VerifiableProperties struct {
	props      map[string]string
	referenced map[string]bool
	err        error
}

// NewVerifiableProperties wraps props (not copied; not modified).
func NewVerifiableProperties(props map[string]string) *VerifiableProperties {
	if props == nil {
		props = map[string]string{}
	}
	return &VerifiableProperties{props: props, referenced: map[string]bool{}}
}

// Err is the first error met by a getter, or nil.
func (v *VerifiableProperties) Err() error { return v.err }

func (v *VerifiableProperties) fail(err error) {
	if v.err == nil {
		v.err = err
	}
}

// requirementFailed is Scala's require: IllegalArgumentException("requirement failed: msg").
func requirementFailed(msg string) error { return errors.New("requirement failed: " + msg) }

// numberFormat is Java's NumberFormatException text.
func numberFormat(s string) error { return fmt.Errorf("For input string: %q", s) }

// ContainsKey reports whether name is set.
func (v *VerifiableProperties) ContainsKey(name string) bool { _, ok := v.props[name]; return ok }

// GetProperty is the trimmed value of name ("" and false when unset), marking it as used.
func (v *VerifiableProperties) GetProperty(name string) (string, bool) {
	v.referenced[name] = true
	s, ok := v.props[name]
	return strings.TrimSpace(s), ok
}

// GetString is a required string property.
func (v *VerifiableProperties) GetString(name string) string {
	s, ok := v.GetProperty(name)
	if !ok {
		v.fail(requirementFailed("Missing required property '" + name + "'"))
	}
	return s
}

// GetStringDefault is name's value, or def when unset.
func (v *VerifiableProperties) GetStringDefault(name, def string) string {
	if !v.ContainsKey(name) {
		v.referenced[name] = true
		return def
	}
	s, _ := v.GetProperty(name)
	return s
}

// GetInt is name as a 32-bit integer, or def when unset.
func (v *VerifiableProperties) GetInt(name string, def int32) int32 {
	return v.GetIntInRange(name, def, math.MinInt32, math.MaxInt32)
}

// GetIntInRange is GetInt checked against [lo, hi].
func (v *VerifiableProperties) GetIntInRange(name string, def, lo, hi int32) int32 {
	n := int64(def)
	if s, ok := v.GetProperty(name); ok {
		var err error
		if n, err = strconv.ParseInt(s, 10, 32); err != nil {
			v.fail(numberFormat(s))
			return def
		}
	} else {
		v.referenced[name] = true
	}
	if n < int64(lo) || n > int64(hi) {
		v.fail(requirementFailed(fmt.Sprintf("%s has value %d which is not in the range (%d,%d).", name, n, lo, hi)))
	}
	return int32(n)
}

// GetShortInRange is name as a 16-bit integer checked against [lo, hi], or def when unset.
func (v *VerifiableProperties) GetShortInRange(name string, def, lo, hi int16) int16 {
	n := int64(def)
	if s, ok := v.GetProperty(name); ok {
		var err error
		if n, err = strconv.ParseInt(s, 10, 16); err != nil {
			v.fail(numberFormat(s))
			return def
		}
	}
	if n < int64(lo) || n > int64(hi) {
		v.fail(requirementFailed(fmt.Sprintf("%s has value %d which is not in the range (%d,%d).", name, n, lo, hi)))
	}
	return int16(n)
}

// GetLong is name as a 64-bit integer, or def when unset.
func (v *VerifiableProperties) GetLong(name string, def int64) int64 {
	s, ok := v.GetProperty(name)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		v.fail(numberFormat(s))
		return def
	}
	return n
}

// GetBoolean is name as "true" or "false" (nothing else), or def when unset.
func (v *VerifiableProperties) GetBoolean(name string, def bool) bool {
	s, ok := v.GetProperty(name)
	if !ok {
		return def
	}
	if s != "true" && s != "false" {
		v.fail(requirementFailed("Unacceptable value for property '" + name + "', boolean values must be either 'true' or 'false"))
		return def
	}
	return s == "true"
}

// Verify logs every set key: "overridden" at INFO when a getter read it, "not valid" at WARN
// otherwise (keys starting with "external" are let through, as in Kafka).
func (v *VerifiableProperties) Verify(log *logrus.Entry) {
	if log == nil {
		return
	}
	log.Info("Verifying properties")
	keys := make([]string, 0, len(v.props))
	for k := range v.props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !v.referenced[k] && !strings.HasPrefix(k, "external") {
			log.Warnf("Property %s is not valid", k)
		} else {
			log.Infof("Property %s is overridden to %s", k, v.props[k])
		}
	}
}

// ValidateChars checks a client or group id: ASCII alphanumerics, '.', '_' and '-' only.
//
// Kafka 0.10.2: kafka.common.Config.validateChars.
func ValidateChars(prop, value string) error {
	for _, c := range value {
		ok := c == '.' || c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
		if !ok {
			return &ConfigException{Msg: prop + " " + value + " is illegal, contains a character other than ASCII alphanumerics, '.', '_' and '-'"}
		}
	}
	return nil
}
