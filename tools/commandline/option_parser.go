package commandline

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// argKind says whether an option takes an argument.
type argKind int

const (
	argNone argKind = iota
	argRequired
	argOptional
)

// OptionSpec is one accepted option. Its String form is jopt-simple's
// rendering of an option in messages: the name in brackets, e.g. "[zookeeper]".
//
// Kafka 0.10.2: joptsimple.OptionSpec (ArgumentAcceptingOptionSpec).
type OptionSpec struct {
	name      string
	desc      string
	argDesc   string
	typeName  string
	kind      argKind
	defaults  []string
	separator string
}

// Name is the option's long name without dashes.
func (s *OptionSpec) Name() string { return s.name }

// String renders the option as jopt-simple does in Kafka's messages.
func (s *OptionSpec) String() string { return "[" + s.name + "]" }

// WithRequiredArg makes the option take a value (`--name value` or `--name=value`).
func (s *OptionSpec) WithRequiredArg() *OptionSpec {
	s.kind = argRequired
	if s.typeName == "" {
		s.typeName = "String"
	}
	return s
}

// WithOptionalArg makes the option accept a value without requiring one.
func (s *OptionSpec) WithOptionalArg() *OptionSpec {
	s.kind = argOptional
	if s.typeName == "" {
		s.typeName = "String"
	}
	return s
}

// DescribedAs names the argument in the help table.
func (s *OptionSpec) DescribedAs(d string) *OptionSpec { s.argDesc = d; return s }

// OfType names the argument's Java type in the help table ("Integer", "Long").
// Conversion is done by the callers (IntValueOf, LongValueOf), so that they
// can report jopt-simple's conversion message.
func (s *OptionSpec) OfType(t string) *OptionSpec { s.typeName = t; return s }

// DefaultsTo gives the values ValueOf/ValuesOf return when the option is absent.
func (s *OptionSpec) DefaultsTo(v ...string) *OptionSpec { s.defaults = v; return s }

// WithValuesSeparatedBy splits each given value on sep (jopt-simple's
// withValuesSeparatedBy).
func (s *OptionSpec) WithValuesSeparatedBy(sep string) *OptionSpec { s.separator = sep; return s }

// OptionParser holds the options a tool accepts.
//
// Kafka 0.10.2: joptsimple.OptionParser (long options only, as Kafka's tools use).
type OptionParser struct {
	specs []*OptionSpec
}

// NewOptionParser returns an empty parser.
func NewOptionParser() *OptionParser { return &OptionParser{} }

// Accepts declares an option without argument; chain WithRequiredArg for one
// that takes a value.
func (p *OptionParser) Accepts(name, desc string) *OptionSpec {
	s := &OptionSpec{name: name, desc: desc}
	p.specs = append(p.specs, s)
	return s
}

// lookup resolves an exact name, or an unambiguous prefix as jopt-simple allows.
func (p *OptionParser) lookup(name string) (*OptionSpec, error) {
	var found []*OptionSpec
	for _, s := range p.specs {
		if s.name == name {
			return s, nil
		}
		if strings.HasPrefix(s.name, name) {
			found = append(found, s)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	return nil, &ParseError{Exception: "joptsimple.UnrecognizedOptionException",
		Message: name + " is not a recognized option"}
}

// ParseError is an error jopt-simple throws while parsing; Kafka's tools do
// not catch it, so the JVM prints it as an uncaught exception.
type ParseError struct {
	Exception string // the Java class name, e.g. joptsimple.UnrecognizedOptionException
	Message   string
}

func (e *ParseError) Error() string { return e.Message }

// OptionSet is the result of parsing.
//
// Kafka 0.10.2: joptsimple.OptionSet.
type OptionSet struct {
	values   map[*OptionSpec][]string
	detected []*OptionSpec
	nonOpts  []string
}

// Parse reads args. Options are `--name`, `--name value` or `--name=value`
// (a single leading dash is accepted too); "--" ends the options; anything
// else is a non-option argument.
func (p *OptionParser) Parse(args ...string) (*OptionSet, error) {
	set := &OptionSet{values: map[*OptionSpec][]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			set.nonOpts = append(set.nonOpts, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			set.nonOpts = append(set.nonOpts, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		value, hasValue := "", false
		if j := strings.IndexByte(name, '='); j >= 0 {
			name, value, hasValue = name[:j], name[j+1:], true
		}
		spec, err := p.lookup(name)
		if err != nil {
			return nil, err
		}
		set.detected = append(set.detected, spec)
		if _, ok := set.values[spec]; !ok {
			set.values[spec] = nil
		}
		switch spec.kind {
		case argNone:
			if hasValue {
				return nil, &ParseError{Exception: "joptsimple.UnrecognizedOptionException",
					Message: name + " is not a recognized option"}
			}
			continue
		case argRequired:
			if !hasValue {
				if i+1 >= len(args) {
					return nil, &ParseError{Exception: "joptsimple.OptionMissingRequiredArgumentException",
						Message: "Option " + spec.name + " requires an argument"}
				}
				i++
				value = args[i]
			}
		case argOptional:
			if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				value, hasValue = args[i], true
			}
			if !hasValue {
				continue
			}
		}
		if spec.separator != "" {
			set.values[spec] = append(set.values[spec], strings.Split(value, spec.separator)...)
		} else {
			set.values[spec] = append(set.values[spec], value)
		}
	}
	return set, nil
}

// Has reports whether the option was given.
func (o *OptionSet) Has(s *OptionSpec) bool {
	_, ok := o.values[s]
	return ok
}

// ValuesOf returns the option's values in order, or its defaults when absent.
func (o *OptionSet) ValuesOf(s *OptionSpec) []string {
	if v, ok := o.values[s]; ok {
		return v
	}
	return s.defaults
}

// ValueOf returns the option's first value (or first default, or "").
func (o *OptionSet) ValueOf(s *OptionSpec) string {
	v := o.ValuesOf(s)
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// IntValueOf converts ValueOf to a Java int; a bad value is jopt-simple's
// conversion error.
func (o *OptionSet) IntValueOf(s *OptionSpec) (int32, error) {
	v := o.ValueOf(s)
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, conversionError(s, v)
	}
	return int32(n), nil
}

// LongValueOf converts ValueOf to a Java long.
func (o *OptionSet) LongValueOf(s *OptionSpec) (int64, error) {
	v := o.ValueOf(s)
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, conversionError(s, v)
	}
	return n, nil
}

func conversionError(s *OptionSpec, v string) error {
	return &ParseError{Exception: "joptsimple.OptionArgumentConversionException",
		Message: fmt.Sprintf("Cannot parse argument '%s' of option %s", v, s.name)}
}

// Specs returns the options in the order they were given, once per occurrence.
func (o *OptionSet) Specs() []*OptionSpec { return o.detected }

// NonOptionArguments returns the arguments that were not options.
func (o *OptionSet) NonOptionArguments() []string { return o.nonOpts }

// sortedSpecs lists the options by name, as jopt-simple's help table does.
func (p *OptionParser) sortedSpecs() []*OptionSpec {
	out := append([]*OptionSpec(nil), p.specs...)
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
