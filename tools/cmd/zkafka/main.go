// Command zkafka is the one binary behind every bin/kafka-*.sh script: each script execs
// `zkafka <subcommand> "$@"`, where the subcommand is the script name without "kafka-" and ".sh".
package main

import "os"

func main() { os.Exit(run(os.Args, os.Stdout, os.Stderr)) }
