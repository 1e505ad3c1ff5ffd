package commandline

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Exit codes of Kafka's tools (CommandLineUtils.printUsageAndDie and the tools' main methods).
const (
	// ExitOK is a normal exit.
	ExitOK = 0
	// ExitUsage is CommandLineUtils.printUsageAndDie's sys.exit(1), also an
	// uncaught exception in the JVM.
	ExitUsage = 1
	// ExitError is kafka-topics' exit code after "Error while executing topic command".
	ExitError = 1
	// ExitAcls is kafka-acls' System.exit(-1).
	ExitAcls = 255
)

// UsageError is printUsageAndDie: the message goes to stderr followed by the
// help table, and the tool exits 1.
type UsageError struct {
	Parser  *OptionParser
	Message string
}

func (e *UsageError) Error() string { return e.Message }

// PrintUsageAndDie returns the usage error Kafka's printUsageAndDie would
// report; the tool returns it to Fail.
//
// Kafka 0.10.2: CommandLineUtils.printUsageAndDie.
func PrintUsageAndDie(p *OptionParser, message string) error {
	return &UsageError{Parser: p, Message: message}
}

// CheckRequiredArgs fails with `Missing required argument "[name]"` for the
// first absent option.
//
// Kafka 0.10.2: CommandLineUtils.checkRequiredArgs.
func CheckRequiredArgs(p *OptionParser, o *OptionSet, required ...*OptionSpec) error {
	for _, s := range required {
		if !o.Has(s) {
			return PrintUsageAndDie(p, `Missing required argument "`+s.String()+`"`)
		}
	}
	return nil
}

// CheckInvalidArgs fails when used is present together with one of invalid.
// The message keeps Kafka's missing space before the second quote.
//
// Kafka 0.10.2: CommandLineUtils.checkInvalidArgs.
func CheckInvalidArgs(p *OptionParser, o *OptionSet, used *OptionSpec, invalid ...*OptionSpec) error {
	if !o.Has(used) {
		return nil
	}
	for _, s := range invalid {
		if o.Has(s) {
			return PrintUsageAndDie(p, `Option "`+used.String()+`" can't be used with option"`+s.String()+`"`)
		}
	}
	return nil
}

// ErrInvalidProperties is parseKeyValueArgs' "more than one '='" failure.
var ErrInvalidProperties = errors.New("invalid command line properties")

// ParseKeyValueArgs splits each "k=v" argument; "k" alone maps to "" when
// acceptMissingValue, else it is an error. An argument with more than one '='
// gives `Invalid command line properties: <all args>` (Kafka prints it and exits 1).
// Keys keep their first-seen order in the returned slice.
//
// Kafka 0.10.2: CommandLineUtils.parseKeyValueArgs.
func ParseKeyValueArgs(args []string, acceptMissingValue bool) (map[string]string, []string, error) {
	props := map[string]string{}
	var order []string
	for _, a := range args {
		parts := strings.Split(a, "=")
		// Java's String.split drops trailing empty strings: "k=" is one part.
		for len(parts) > 0 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
		if len(parts) == 0 {
			continue
		}
		var k, v string
		switch len(parts) {
		case 1:
			if !acceptMissingValue {
				return nil, nil, fmt.Errorf("Missing value for key %s", parts[0])
			}
			k = parts[0]
		case 2:
			k, v = parts[0], parts[1]
		default:
			return nil, nil, fmt.Errorf("%w: Invalid command line properties: %s", ErrInvalidProperties, strings.Join(args, " "))
		}
		if _, seen := props[k]; !seen {
			order = append(order, k)
		}
		props[k] = v
	}
	return props, order, nil
}

// Fail reports a parse or usage error the way the JVM tool would and returns
// the exit code: a UsageError prints its message and the help table; a
// jopt-simple ParseError prints as an uncaught exception. Anything else
// prints its message.
func Fail(stderr io.Writer, err error) int {
	var ue *UsageError
	var pe *ParseError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, ue.Message)
		if ue.Parser != nil {
			ue.Parser.PrintHelpOn(stderr)
		}
	case errors.As(err, &pe):
		fmt.Fprintf(stderr, "Exception in thread \"main\" %s: %s\n", pe.Exception, pe.Message)
	default:
		fmt.Fprintln(stderr, err)
	}
	return ExitUsage
}
