// Package commandline is the option handling every Kafka command-line tool
// shares: a small jopt-simple-like parser (long options written `--name value`
// or `--name=value`, unique-prefix abbreviations, repeated options, option
// values split on a separator), the required/invalid option checks with
// Kafka's exact messages, the help table printed on standard error, the
// key=value argument parser, and the exit codes.
//
// Kafka 0.10.2: kafka.utils.CommandLineUtils (core/src/main/scala/kafka/utils/CommandLineUtils.scala)
// and the part of joptsimple.OptionParser the tools rely on.
//
// Bookmap: docs/bookmap.md (001 ch.5, what every tool shares: messages and exit codes).
//
// # Go differences
//
// Kafka's printUsageAndDie calls System.exit; here nothing exits the process.
// The checks return a *UsageError and the tool's Run turns it into the message,
// the help table on stderr and exit code 1 (Fail). jopt-simple's own parse
// errors (an unknown option, a missing argument, a bad number) escape Kafka's
// tools as uncaught exceptions; Fail prints them as the JVM would
// (`Exception in thread "main" joptsimple.…Exception: …`) and also returns 1.
//
// The help table follows jopt-simple's BuiltinHelpFormatter layout (option
// column, description column, 80 characters, wrapped descriptions) closely but
// not byte for byte; tests compare the messages, not the table.
package commandline
