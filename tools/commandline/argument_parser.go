package commandline

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Argument is one option of an ArgumentParser.
//
// Kafka 0.10.2: net.sourceforge.argparse4j Argument (as the Java tools ProducerPerformance,
// VerifiableProducer and VerifiableConsumer declare theirs).
type Argument struct {
	name     string // --topic
	dest     string
	metavar  string
	help     string
	typ      string // String, Integer, Long
	required bool
	nargs    bool // "+": one or more values
	def      string
	hasDef   bool
	flag     bool // storeTrue
	choices  []string
	group    *ExclusiveGroup
}

// Required marks the argument required.
func (a *Argument) Required() *Argument { a.required = true; return a }

// Type names the Java type of the value (String, Integer, Long, Boolean); Integer and Long are
// checked when parsed.
func (a *Argument) Type(t string) *Argument { a.typ = t; return a }

// Metavar is the value's name in the usage.
func (a *Argument) Metavar(m string) *Argument { a.metavar = m; return a }

// Dest is the name the value is stored under.
func (a *Argument) Dest(d string) *Argument { a.dest = d; return a }

// Help is the description.
func (a *Argument) Help(h string) *Argument { a.help = h; return a }

// Default is the value when absent (argparse4j setDefault).
func (a *Argument) Default(v string) *Argument { a.def, a.hasDef = v, true; return a }

// OneOrMore takes one or more values (nargs("+")).
func (a *Argument) OneOrMore() *Argument { a.nargs = true; return a }

// StoreTrue makes the argument a flag (action(storeTrue())).
func (a *Argument) StoreTrue() *Argument { a.flag = true; a.typ = "Boolean"; return a }

// Choices restricts the value.
func (a *Argument) Choices(c ...string) *Argument { a.choices = c; return a }

// ExclusiveGroup is a mutually exclusive group of arguments.
type ExclusiveGroup struct {
	parser   *ArgumentParser
	args     []*Argument
	required bool
}

// Required makes one of the group's arguments required.
func (g *ExclusiveGroup) Required() *ExclusiveGroup { g.required = true; return g }

// AddArgument adds an argument to the group.
func (g *ExclusiveGroup) AddArgument(name string) *Argument {
	a := g.parser.AddArgument(name)
	a.group = g
	g.args = append(g.args, a)
	return a
}

// ArgumentParser is the part of argparse4j the Java tools use: long options with values
// (`--name value` or `--name=value`), required options, one-or-more values, flags, choices,
// mutually exclusive groups, -h/--help, and argparse4j's usage and error lines.
//
// Kafka 0.10.2: net.sourceforge.argparse4j.ArgumentParsers.newArgumentParser (the Java tools'
// parser; the Scala tools use jopt-simple, OptionParser here).
type ArgumentParser struct {
	prog        string
	description string
	args        []*Argument
	groups      []*ExclusiveGroup
}

// NewArgumentParser returns a parser for prog.
func NewArgumentParser(prog, description string) *ArgumentParser {
	return &ArgumentParser{prog: prog, description: description}
}

// AddArgument declares --name.
func (p *ArgumentParser) AddArgument(name string) *Argument {
	a := &Argument{name: name, dest: strings.TrimLeft(name, "-"), typ: "String"}
	a.metavar = strings.ToUpper(a.dest)
	p.args = append(p.args, a)
	return a
}

// AddMutuallyExclusiveGroup starts a group.
func (p *ArgumentParser) AddMutuallyExclusiveGroup() *ExclusiveGroup {
	g := &ExclusiveGroup{parser: p}
	p.groups = append(p.groups, g)
	return g
}

// Namespace holds parsed values by dest.
//
// Kafka 0.10.2: net.sourceforge.argparse4j.inf.Namespace.
type Namespace struct {
	values map[string][]string
	given  map[string]bool
}

// String is the value (or default) of dest, "" when none.
func (n *Namespace) String(dest string) string {
	if v := n.values[dest]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Has reports a value for dest (given, or defaulted).
func (n *Namespace) Has(dest string) bool { return len(n.values[dest]) > 0 }

// List is every value of a one-or-more argument.
func (n *Namespace) List(dest string) []string { return n.values[dest] }

// Int is an Integer value.
func (n *Namespace) Int(dest string) int32 {
	v, _ := strconv.ParseInt(n.String(dest), 10, 32)
	return int32(v)
}

// Long is a Long value.
func (n *Namespace) Long(dest string) int64 {
	v, _ := strconv.ParseInt(n.String(dest), 10, 64)
	return v
}

// Bool is a flag.
func (n *Namespace) Bool(dest string) bool { return n.String(dest) == "true" }

// ArgumentParserError is argparse4j's ArgumentParserException: handleError prints the usage
// and "prog: error: message" on stderr, and the tool exits 1.
type ArgumentParserError struct {
	Parser  *ArgumentParser
	Message string
}

func (e *ArgumentParserError) Error() string { return e.Message }

// ErrHelp is returned by Parse for -h/--help.
var ErrHelp = errors.New("help requested")

// Parse reads args.
func (p *ArgumentParser) Parse(args []string) (*Namespace, error) {
	ns := &Namespace{values: map[string][]string{}, given: map[string]bool{}}
	fail := func(format string, a ...any) (*Namespace, error) {
		return nil, &ArgumentParserError{Parser: p, Message: fmt.Sprintf(format, a...)}
	}
	var unrecognized []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "-h" || arg == "--help" {
			return nil, ErrHelp
		}
		name, value, hasValue := arg, "", false
		if j := strings.IndexByte(arg, '='); j > 0 && strings.HasPrefix(arg, "--") {
			name, value, hasValue = arg[:j], arg[j+1:], true
		}
		a := p.lookup(name)
		if a == nil {
			unrecognized = append(unrecognized, "'"+arg+"'")
			continue
		}
		if a.group != nil {
			for _, other := range a.group.args {
				if other != a && ns.given[other.dest] {
					return fail("argument %s: not allowed with argument %s", a.name, other.name)
				}
			}
		}
		ns.given[a.dest] = true
		if a.flag {
			ns.values[a.dest] = []string{"true"}
			continue
		}
		var vals []string
		switch {
		case hasValue:
			vals = []string{value}
		case a.nargs:
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
				i++
				vals = append(vals, args[i])
			}
			if len(vals) == 0 {
				return fail("argument %s: expected at least one argument", a.name)
			}
		default:
			if i+1 >= len(args) || (strings.HasPrefix(args[i+1], "--") && p.lookup(strings.SplitN(args[i+1], "=", 2)[0]) != nil) {
				return fail("argument %s: expected one argument", a.name)
			}
			i++
			vals = []string{args[i]}
		}
		for _, v := range vals {
			if err := a.check(v); err != "" {
				return fail("argument %s: %s", a.name, err)
			}
		}
		if a.nargs {
			ns.values[a.dest] = append(ns.values[a.dest], vals...)
		} else {
			ns.values[a.dest] = vals
		}
	}
	if len(unrecognized) > 0 {
		return fail("unrecognized arguments: %s", strings.Join(unrecognized, " "))
	}
	for _, a := range p.args {
		if a.required && !ns.given[a.dest] {
			return fail("argument %s is required", a.name)
		}
		if !ns.given[a.dest] && a.hasDef {
			ns.values[a.dest] = []string{a.def}
		}
	}
	for _, g := range p.groups {
		if !g.required {
			continue
		}
		found := false
		var names []string
		for _, a := range g.args {
			found = found || ns.given[a.dest]
			names = append(names, a.name)
		}
		if !found {
			return fail("one of the arguments %s is required", strings.Join(names, " "))
		}
	}
	return ns, nil
}

func (p *ArgumentParser) lookup(name string) *Argument {
	for _, a := range p.args {
		if a.name == name {
			return a
		}
	}
	return nil
}

// check validates a value's type and choices; "" when fine.
func (a *Argument) check(v string) string {
	switch a.typ {
	case "Integer":
		if _, err := strconv.ParseInt(v, 10, 32); err != nil {
			return fmt.Sprintf("could not convert '%s' to Integer (For input string: \"%s\")", v, v)
		}
	case "Long":
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return fmt.Sprintf("could not convert '%s' to Long (For input string: \"%s\")", v, v)
		}
	}
	if len(a.choices) > 0 && !slices.Contains(a.choices, v) {
		return fmt.Sprintf("invalid choice: '%s' (choose from {%s})", v, strings.Join(a.choices, ", "))
	}
	return ""
}

// usageToken renders an argument in the usage line.
func (a *Argument) usageToken() string {
	s := a.name
	switch {
	case a.flag:
	case a.nargs:
		s += " " + a.metavar + " [" + a.metavar + " ...]"
	default:
		s += " " + a.metavar
	}
	return s
}

// PrintUsage writes the usage line.
func (p *ArgumentParser) PrintUsage(w io.Writer) {
	parts := []string{"usage: " + p.prog, "[-h]"}
	done := map[*ExclusiveGroup]bool{}
	for _, a := range p.args {
		if a.group != nil {
			if done[a.group] {
				continue
			}
			done[a.group] = true
			var alts []string
			for _, g := range a.group.args {
				alts = append(alts, g.usageToken())
			}
			if a.group.required {
				parts = append(parts, "("+strings.Join(alts, " | ")+")")
			} else {
				parts = append(parts, "["+strings.Join(alts, " | ")+"]")
			}
			continue
		}
		if a.required {
			parts = append(parts, a.usageToken())
		} else {
			parts = append(parts, "["+a.usageToken()+"]")
		}
	}
	fmt.Fprintln(w, strings.Join(parts, " "))
}

// PrintHelp writes the usage, the description and one entry per argument.
func (p *ArgumentParser) PrintHelp(w io.Writer) {
	p.PrintUsage(w)
	fmt.Fprintf(w, "\n%s\n\n", p.description)
	fmt.Fprintln(w, "optional arguments:")
	entry := func(left, help string) {
		if len(left) > 22 {
			fmt.Fprintf(w, "  %s\n", left)
			left = ""
		}
		for i, line := range wrap(help, 54) {
			if i > 0 {
				left = ""
			}
			fmt.Fprintf(w, "  %-22s %s\n", left, line)
		}
	}
	entry("-h, --help", "show this help message and exit")
	for _, a := range p.args {
		help := a.help
		if a.hasDef {
			help += " (default: " + a.def + ")"
		}
		entry(a.usageToken(), help)
	}
}

// HandleError is argparse4j's handleError: the usage and "prog: error: message" on stderr.
func (p *ArgumentParser) HandleError(w io.Writer, err error) {
	p.PrintUsage(w)
	fmt.Fprintf(w, "%s: error: %s\n", p.prog, err.Error())
}

// RunParse is the Java tools' idiom around parseArgs: no arguments prints the help on stdout
// and exits 0; -h likewise; a parse error prints the usage and the error on stderr and exits 1.
// ok is false when the tool should return code.
func (p *ArgumentParser) RunParse(args []string, stdout, stderr io.Writer) (ns *Namespace, code int, ok bool) {
	ns, err := p.Parse(args)
	switch {
	case err == nil:
		return ns, 0, true
	case errors.Is(err, ErrHelp), len(args) == 0:
		p.PrintHelp(stdout)
		return nil, 0, false
	default:
		p.HandleError(stderr, err)
		return nil, 1, false
	}
}
