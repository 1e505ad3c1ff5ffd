//go:build !unix

package network

import "syscall"

// nonBlockingWriter is a stand-in where the descriptor cannot be written directly: it writes
// nothing, so every response goes through the writer goroutine.
type nonBlockingWriter struct{}

func (*nonBlockingWriter) writeNonBlocking(syscall.RawConn, []byte) (int, error) { return 0, nil }
