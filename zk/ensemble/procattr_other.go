//go:build !linux

package ensemble

import (
	"syscall"
	"time"
)

// sysProcAttr: only Linux offers a parent-death signal.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// waitStopped cannot observe thread states without /proc; give SIGSTOP a
// moment instead.
func waitStopped(pid int, timeout time.Duration) error {
	time.Sleep(100 * time.Millisecond)
	return nil
}
