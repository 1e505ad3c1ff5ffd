//go:build !linux

package serverstart

import "syscall"

func detachedProcAttr() *syscall.SysProcAttr { return nil }
