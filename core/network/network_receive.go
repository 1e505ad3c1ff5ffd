package network

import (
	"errors"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// eagerReceive is the largest frame body read into a buffer of its full declared size at once.
// A larger body is read in chunks of this size until half of it has arrived, then into one buffer
// of the full size (the chunks copied in): a frame size costs memory only once the bytes behind it
// have come, so a client that announces socket.request.max.bytes and stalls holds what it sent,
// and a frame that does arrive is copied at most half.
const eagerReceive = 1 << 20

// readPayload reads a frame body of size bytes.
//
// Kafka 0.10.2: NetworkReceive.readFromReadableChannel allocates the declared size as soon as the
// size prefix is read (bounded only by socket.request.max.bytes and the JVM heap); later Kafka
// bounds it with queued.max.request.bytes (KIP-72). See docs/deviations.md.
func readPayload(r io.Reader, size int, memory *memoryReturner) ([]byte, error) {
	if size <= eagerReceive {
		buf := make([]byte, size)
		_, err := io.ReadFull(r, buf)
		return buf, err
	}
	var chunks [][]byte
	got := 0
	for got < size/2 {
		chunk := make([]byte, min(eagerReceive, size-got))
		n, err := io.ReadFull(r, chunk)
		got += n
		if err != nil {
			memory.released(got)
			return nil, midFrame(err)
		}
		chunks = append(chunks, chunk)
	}
	buf := make([]byte, size)
	off := 0
	for _, c := range chunks {
		off += copy(buf[off:], c)
	}
	chunks = nil
	_, err := io.ReadFull(r, buf[off:])
	memory.released(size)
	if err != nil {
		return nil, midFrame(err)
	}
	return buf, nil
}

// midFrame: the stream ending inside a frame is an unexpected EOF.
func midFrame(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// memoryReturner gives the memory of large receive buffers back to the operating system once
// they are garbage. The Go runtime returns freed heap to the system only gradually (and collects
// only when allocation resumes, or every two minutes), so after a burst of large frames, or of
// connections that announced them and went away, the broker would keep gigabytes it no longer
// uses. Every interval, if at least threshold bytes of large receives ended since the last look,
// it runs debug.FreeOSMemory (a collection, then every free page returned).
type memoryReturner struct {
	interval  time.Duration
	threshold int64
	ended     atomic.Int64

	once sync.Once
	stop chan struct{}
	done chan struct{}
}

func newMemoryReturner(interval time.Duration, threshold int64) *memoryReturner {
	return &memoryReturner{interval: interval, threshold: threshold, stop: make(chan struct{}), done: make(chan struct{})}
}

// released records n bytes of a chunked receive (a frame over eagerReceive) that are (or will
// be, once the request is handled) garbage. A nil returner records nothing.
func (m *memoryReturner) released(n int) {
	if m != nil {
		m.ended.Add(int64(n))
	}
}

func (m *memoryReturner) run() {
	defer close(m.done)
	t := time.NewTicker(m.interval)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			if m.ended.Load() >= m.threshold {
				m.ended.Store(0)
				debug.FreeOSMemory()
			}
		}
	}
}

func (m *memoryReturner) shutdown() {
	m.once.Do(func() { close(m.stop) })
	<-m.done
}
