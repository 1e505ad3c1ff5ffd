// Command zkafka is the one binary behind every bin/kafka-*.sh script: each script execs
// `zkafka <subcommand> "$@"`, where the subcommand is the script name without "kafka-" and ".sh".
// Run through a link named after a script (kafka-topics.sh -> zkafka, as in the FROM-scratch
// broker image, which has no shell to run the wrappers), it runs that script's subcommand.
package main

import "os"

func main() { os.Exit(run(scriptArgs(os.Args), os.Stdout, os.Stderr)) }
