package serverstop

import (
	"io"
	"path/filepath"

	"github.com/zkafka/zkafka/tools/commandline"
)

// Run is `kafka-server-stop.sh`: it signals every `zkafka server-start` process (and every
// kafka.Kafka JVM, for a real Kafka started by hand) with SIGTERM and returns without waiting, as
// the script does; "No kafka server to stop" and exit 1 when there is none.
func Run(args []string, stdout, stderr io.Writer) int {
	return commandline.StopAll(FindBrokers("/proc"), "kafka server", stdout)
}

// FindBrokers scans procRoot for broker processes: zkafka running server-start, and java running
// kafka.Kafka.
func FindBrokers(procRoot string) []int {
	var out []int
	for _, p := range commandline.Processes(procRoot) {
		switch filepath.Base(p.Argv[0]) {
		case "zkafka":
			if len(p.Argv) > 1 && p.Argv[1] == "server-start" {
				out = append(out, p.PID)
			}
		case "java":
			for _, a := range p.Argv[1:] {
				if a == "kafka.Kafka" {
					out = append(out, p.PID)
					break
				}
			}
		}
	}
	return out
}
