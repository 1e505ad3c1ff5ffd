//go:build !linux

package record

import (
	"io"
	"os"
)

// sendfileTo is Linux-only; elsewhere FileRecords copies.
func sendfileTo(io.Writer, *os.File, int64, int64) (int64, bool, error) { return 0, false, nil }
