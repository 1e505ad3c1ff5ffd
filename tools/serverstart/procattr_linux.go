//go:build linux

package serverstart

import "syscall"

// detachedProcAttr puts the daemon in its own session, as nohup plus & does for the script.
func detachedProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
