package dumplogsegments

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// helpText is the option table Kafka's jopt-simple parser prints after a usage error.
const helpText = `Option                                  Description
------                                  -----------
--deep-iteration                        if set, uses deep instead of shallow
                                          iteration
--files <file1, file2, ...>             REQUIRED: The comma separated list of data
                                          and index log files to be dumped
--index-sanity-check                    if set, just checks the index sanity
                                          without printing its content. This is
                                          the same check that is executed on
                                          broker startup to determine if an index
                                          needs rebuilding or not.
--key-decoder-class                     if set, used to deserialize the keys. This
                                          class should implement kafka.serializer.
                                          Decoder trait. Custom jar should be
                                          available in kafka/libs directory.
                                          (default: kafka.serializer.StringDecoder)
--max-message-size <Integer: size>      Size of largest message. (default: 5242880)
--offsets-decoder                       if set, log data will be parsed as offset
                                          data from __consumer_offsets topic
--print-data-log                        if set, printing the messages content when
                                          dumping data logs
--value-decoder-class                   if set, used to deserialize the messages.
                                          This class should implement kafka.
                                          serializer.Decoder trait. Custom jar
                                          should be available in kafka/libs
                                          directory. (default: kafka.serializer.
                                          StringDecoder)
--verify-index-only                     if set, just verify the index log without
                                          printing its content
`

// Main is the command-line entry point (`kafka-run-class.sh kafka.tools.DumpLogSegments ...` and
// `zkafka dump-log-segments ...`): usage errors print Kafka's message and the option table to
// stderr and exit 1, as CommandLineUtils.printUsageAndDie does.
func Main(args []string, stdout, stderr io.Writer) int {
	opts, err := ParseArgs(args)
	if err != nil {
		if errors.Is(err, ErrUsage) {
			fmt.Fprintln(stderr, strings.TrimPrefix(err.Error(), ErrUsage.Error()+": "))
			fmt.Fprint(stderr, helpText)
			return 1
		}
		fmt.Fprintln(stderr, err)
		return 1
	}
	opts.Stderr = stderr
	if err := Run(context.Background(), opts, stdout); err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}
	return 0
}
