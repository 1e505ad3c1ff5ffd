package network

import (
	"encoding/binary"
	"io"
	"sync/atomic"
)

// NetworkSend is a size-delimited frame: the INT32 size of the payload, then the payload.
//
// Kafka 0.10.2: org.apache.kafka.common.network.NetworkSend (a ByteBufferSend of the size and
// the payload buffers).
type NetworkSend struct {
	dest      string
	frame     []byte
	completed atomic.Bool
}

// FrameHeaderSize is the size prefix of every frame.
const FrameHeaderSize = 4

// NewNetworkSend wraps a frame whose first FrameHeaderSize bytes were reserved for the size
// (AppendFrameHeader, then the payload): the size is written in place, nothing is copied.
func NewNetworkSend(dest string, frame []byte) *NetworkSend {
	if len(frame) >= FrameHeaderSize {
		binary.BigEndian.PutUint32(frame, uint32(len(frame)-FrameHeaderSize))
	}
	return &NetworkSend{dest: dest, frame: frame}
}

// AppendFrameHeader reserves the size prefix of a frame to be passed to NewNetworkSend.
func AppendFrameHeader(dst []byte) []byte { return append(dst, 0, 0, 0, 0) }

// Destination implements Send.
func (s *NetworkSend) Destination() string { return s.dest }

// Completed implements Send.
func (s *NetworkSend) Completed() bool { return s.completed.Load() }

// Size implements Send.
func (s *NetworkSend) Size() int64 { return int64(len(s.frame)) }

// Frame is the size-prefixed bytes.
func (s *NetworkSend) Frame() []byte { return s.frame }

// WriteTo implements Send.
func (s *NetworkSend) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(s.frame)
	if err == nil && n < len(s.frame) {
		err = io.ErrShortWrite
	}
	if err == nil {
		s.completed.Store(true)
	}
	return int64(n), err
}
