package serverstop

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Run is `kafka-server-stop.sh`: it signals every `zkafka server-start` process (and every
// kafka.Kafka JVM, for a real Kafka started by hand) with SIGTERM and returns without waiting, as
// the script does; "No kafka server to stop" and exit 1 when there is none.
func Run(args []string, stdout, stderr io.Writer) int {
	pids := FindBrokers("/proc")
	if len(pids) == 0 {
		fmt.Fprintln(stdout, "No kafka server to stop")
		return 1
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	return 0
}

// FindBrokers scans procRoot for broker processes: zkafka running server-start, and java running
// kafka.Kafka.
func FindBrokers(procRoot string) []int {
	entries, _ := os.ReadDir(procRoot)
	self := os.Getpid()
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "cmdline"))
		if err != nil || len(raw) == 0 {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		switch filepath.Base(argv[0]) {
		case "zkafka":
			if len(argv) > 1 && argv[1] == "server-start" {
				out = append(out, pid)
			}
		case "java":
			for _, a := range argv[1:] {
				if a == "kafka.Kafka" {
					out = append(out, pid)
					break
				}
			}
		}
	}
	return out
}
