package commandline

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Process is one entry of a /proc-like table: its pid and command line.
type Process struct {
	PID  int
	Argv []string
}

// Processes lists the processes under procRoot (other than this one) with their command lines;
// the *-stop.sh scripts use it where Kafka's scripts run `ps ax | grep`.
func Processes(procRoot string) []Process {
	entries, _ := os.ReadDir(procRoot)
	self := os.Getpid()
	var out []Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "cmdline"))
		if err != nil || len(raw) == 0 {
			continue
		}
		out = append(out, Process{PID: pid, Argv: strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")})
	}
	return out
}

// StopAll is the body of kafka-server-stop.sh and zookeeper-server-stop.sh: SIGTERM to every pid,
// without waiting, or "No <what> to stop" and exit 1 when there is none.
func StopAll(pids []int, what string, stdout io.Writer) int {
	if len(pids) == 0 {
		fmt.Fprintf(stdout, "No %s to stop\n", what)
		return 1
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	return 0
}
