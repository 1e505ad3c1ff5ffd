//go:build !linux

package record

import (
	"io"
	"os"
)

// sendfileTo is Linux-only; elsewhere FileRecords copies.
func sendfileTo(io.Writer, *os.File, int64, int64) (int64, bool, error) { return 0, false, nil }

// openRegularFile is os.OpenFile (see the Linux version).
func openRegularFile(path string, flag int, perm uint32) (*os.File, error) {
	return os.OpenFile(path, flag, os.FileMode(perm))
}
