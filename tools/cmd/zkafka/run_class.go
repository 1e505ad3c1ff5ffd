package main

import (
	"context"
	"fmt"
	"io"

	"github.com/zkafka/zkafka/tools/offsetchecker"
	"github.com/zkafka/zkafka/tools/zkoffsets"
)

// classOnlyTools are Kafka main classes with no bin/ script of their own, reached only through
// kafka-run-class.sh.
var classOnlyTools = map[string]func(context.Context, []string, io.Writer, io.Writer) int{
	"kafka.tools.ExportZkOffsets":         zkoffsets.Export,
	"kafka.tools.ImportZkOffsets":         zkoffsets.Import,
	"kafka.tools.UpdateOffsetsInZK":       zkoffsets.UpdateOffsetsInZK,
	"kafka.tools.VerifyConsumerRebalance": offsetchecker.VerifyConsumerRebalance,
}

// runClass implements `kafka-run-class.sh <MainClass> args...`: it maps Kafka's main class to the
// zkafka subcommand that implements it, so command lines copied from the books work unchanged.
func runClass(args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		fmt.Fprintln(stderr, "USAGE: kafka-run-class.sh [-daemon] [-name servicename] [-loggc] classname [opts]")
		return 1
	}
	class, rest := args[0], args[1:]
	if f := classOnlyTools[class]; f != nil {
		return f(context.Background(), rest, stdout, stderr)
	}
	for _, s := range scriptTable {
		if s.MainClass != class {
			continue
		}
		if f := commands()[s.Subcommand]; f != nil {
			return f(rest, stdout, stderr)
		}
		fmt.Fprintf(stderr, "%s (%s) is not implemented in zkafka yet.\n", class, s.Subcommand)
		return 1
	}
	fmt.Fprintf(stderr, "Error: Could not find or load main class %s\n", class)
	return 1
}
