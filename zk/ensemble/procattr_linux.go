package ensemble

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// sysProcAttr makes the kernel SIGKILL the JVM if the Go process dies
// without Close (a test binary killed by its timeout), so that no orphan
// ZooKeeper keeps ports and memory. (The signal is tied to the OS thread
// that started the child; the Go runtime only retires threads of goroutines
// that exit while locked, which this package never does.)
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// waitStopped waits until every thread of pid is in the stopped state.
// kill(SIGSTOP) returns before the JVM's threads have all stopped, and a
// NIO thread still running can answer one more request, so Pause waits.
func waitStopped(pid int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if allStopped(pid) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ensemble: pid %d not stopped within %v", pid, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func allStopped(pid int) bool {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		b, err := os.ReadFile(task)
		if err != nil {
			continue // the thread exited
		}
		// The state follows the ")" closing the command name.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || i+2 >= len(s) {
			return false
		}
		if st := s[i+2]; st != 'T' && st != 't' {
			return false
		}
	}
	return true
}
