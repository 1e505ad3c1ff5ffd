package dumplogsegments

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// DefaultMaxMessageSize is --max-message-size's default (5 MiB).
const DefaultMaxMessageSize = 5 * 1024 * 1024

// StringDecoder is the default key and value decoder class.
const StringDecoder = "kafka.serializer.StringDecoder"

// ErrUsage marks a command-line problem; the caller prints the message and the help text and
// exits 1, as CommandLineUtils.printUsageAndDie does.
var ErrUsage = errors.New("usage error")

// UsageMessage is what Kafka prints when the tool is run without arguments.
const UsageMessage = "Parse a log file and dump its contents to the console, useful for debugging a seemingly corrupt log segment."

// Options are the tool's settings, one field per Kafka option.
type Options struct {
	// Files are the .log, .index and .timeindex files to dump (--files, comma separated).
	Files []string
	// PrintDataLog prints keys and payloads (--print-data-log; implied by the decoder options).
	PrintDataLog bool
	// DeepIteration iterates inside compressed wrapper messages (--deep-iteration).
	DeepIteration bool
	// VerifyIndexOnly checks indexes without printing their entries (--verify-index-only).
	VerifyIndexOnly bool
	// IndexSanityCheck runs only the broker's startup sanity check on indexes (--index-sanity-check).
	IndexSanityCheck bool
	// MaxMessageSize bounds a message's size while reading (--max-message-size).
	MaxMessageSize int
	// KeyDecoder and ValueDecoder are Kafka decoder class names (--key-decoder-class,
	// --value-decoder-class): kafka.serializer.StringDecoder or kafka.serializer.DefaultDecoder.
	KeyDecoder, ValueDecoder string
	// OffsetsDecoder decodes __consumer_offsets records (--offsets-decoder).
	OffsetsDecoder bool
	// Stderr receives the verification summaries Kafka prints on standard error; nil means
	// the process's standard error.
	Stderr io.Writer
}

// DefaultOptions returns Kafka's defaults.
func DefaultOptions() Options {
	return Options{MaxMessageSize: DefaultMaxMessageSize, KeyDecoder: StringDecoder, ValueDecoder: StringDecoder}
}

type optionSpec struct {
	name string
	arg  int // 0 none, 1 required, 2 optional
}

var optionSpecs = []optionSpec{
	{"print-data-log", 0}, {"verify-index-only", 0}, {"index-sanity-check", 0},
	{"files", 1}, {"max-message-size", 1}, {"deep-iteration", 0},
	{"value-decoder-class", 2}, {"key-decoder-class", 2}, {"offsets-decoder", 0},
}

// lookupOption resolves a name or an unambiguous prefix of one, as jopt-simple does.
func lookupOption(name string) (optionSpec, error) {
	var found []optionSpec
	for _, s := range optionSpecs {
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
	return optionSpec{}, fmt.Errorf("%w: %s is not a recognized option", ErrUsage, name)
}

// ParseArgs parses Kafka's command line (joptsimple long options, "--name value" or
// "--name=value", unambiguous prefixes accepted).
func ParseArgs(args []string) (Options, error) {
	opts := DefaultOptions()
	if len(args) == 0 {
		return opts, fmt.Errorf("%w: %s", ErrUsage, UsageMessage)
	}
	seen := map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			continue // jopt-simple keeps non-option arguments; the tool ignores them
		}
		name := strings.TrimLeft(a, "-")
		value, hasValue := "", false
		if eq := strings.IndexByte(name, '='); eq >= 0 {
			name, value, hasValue = name[:eq], name[eq+1:], true
		}
		spec, err := lookupOption(name)
		if err != nil {
			return opts, err
		}
		switch spec.arg {
		case 0:
			if hasValue {
				return opts, fmt.Errorf("%w: Option %s does not take an argument", ErrUsage, spec.name)
			}
		case 1:
			if !hasValue {
				if i+1 >= len(args) {
					return opts, fmt.Errorf("%w: Option %s requires an argument", ErrUsage, spec.name)
				}
				i++
				value, hasValue = args[i], true
			}
		case 2:
			if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				value, hasValue = args[i], true
			}
		}
		seen[spec.name] = true
		switch spec.name {
		case "print-data-log":
			opts.PrintDataLog = true
		case "verify-index-only":
			opts.VerifyIndexOnly = true
		case "index-sanity-check":
			opts.IndexSanityCheck = true
		case "deep-iteration":
			opts.DeepIteration = true
		case "offsets-decoder":
			opts.OffsetsDecoder = true
		case "files":
			opts.Files = strings.Split(value, ",")
		case "max-message-size":
			n, err := strconv.ParseInt(value, 10, 32)
			if err != nil {
				return opts, fmt.Errorf("%w: Cannot parse argument '%s' of option max-message-size", ErrUsage, value)
			}
			opts.MaxMessageSize = int(n)
		case "key-decoder-class":
			if hasValue {
				opts.KeyDecoder = value
			}
		case "value-decoder-class":
			if hasValue {
				opts.ValueDecoder = value
			}
		}
	}
	if !seen["files"] {
		return opts, fmt.Errorf("%w: Missing required argument \"[files]\"", ErrUsage)
	}
	// Kafka turns printing on whenever a decoder option is present.
	if seen["offsets-decoder"] || seen["key-decoder-class"] || seen["value-decoder-class"] {
		opts.PrintDataLog = true
	}
	return opts, nil
}
