//go:build unix

package network

import (
	"errors"
	"io"
	"syscall"
)

// nonBlockingWriter writes to a socket descriptor without waiting for it to become writable. It
// keeps its state and its callback between calls so that a write allocates nothing; one belongs to
// each KafkaChannel and only the Processor's goroutine uses it (the channel is muted meanwhile).
type nonBlockingWriter struct {
	buf []byte
	n   int
	err error
	fn  func(fd uintptr) bool
}

func (w *nonBlockingWriter) write(fd uintptr) bool {
	for w.n < len(w.buf) {
		m, err := syscall.Write(int(fd), w.buf[w.n:])
		if m > 0 {
			w.n += m
		}
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return true // the socket buffer is full: the writer goroutine sends the rest
		case err != nil:
			w.err = err
			return true
		case m == 0:
			w.err = io.ErrShortWrite
			return true
		}
	}
	return true
}

// writeNonBlocking writes b to the socket behind raw until it is written or the socket buffer is
// full (EAGAIN), and returns how much went.
func (w *nonBlockingWriter) writeNonBlocking(raw syscall.RawConn, b []byte) (int, error) {
	if w.fn == nil {
		w.fn = w.write
	}
	w.buf, w.n, w.err = b, 0, nil
	err := raw.Write(w.fn)
	n, werr := w.n, w.err
	w.buf = nil
	if werr != nil {
		return n, werr
	}
	return n, err
}
