package network

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Unlimited is the maximum size of a receive with no limit (the clients' default, as in Kafka).
//
// Kafka 0.10.2: NetworkReceive.UNLIMITED.
const Unlimited = -1

// ErrInvalidReceive marks a size prefix that is negative or above the receive's maximum; the
// connection it came on is closed.
//
// Kafka 0.10.2: org.apache.kafka.common.network.InvalidReceiveException.
var ErrInvalidReceive = errors.New("invalid receive")

// CheckReceiveSize is the one frame-size rule of every reader of size-delimited frames: a size
// below 0 is invalid, and so is one above maxSize unless maxSize is Unlimited. The broker's
// socket.request.max.bytes, a client's receive limit and a blocking channel's all go through it.
//
// Kafka 0.10.2: NetworkReceive.readFromReadableChannel's size checks (messages verbatim).
func CheckReceiveSize(size int32, maxSize int) error {
	if size < 0 {
		return fmt.Errorf("%w: Invalid receive (size = %d)", ErrInvalidReceive, size)
	}
	if maxSize != Unlimited && int64(size) > int64(maxSize) {
		return fmt.Errorf("%w: Invalid receive (size = %d larger than %d)", ErrInvalidReceive, size, maxSize)
	}
	return nil
}

// receiveChunk bounds how much of a frame is allocated ahead of the bytes that arrived: a frame
// declaring a large size grows its buffer as its bytes come in, so a bogus size prefix from a
// peer that then sends nothing (or a text protocol spoken to the wrong port) costs no memory.
const receiveChunk = 1 << 20

// NetworkReceive is one size-delimited frame read from a connection: its source (the connection
// id) and its payload (without the size prefix).
//
// Kafka 0.10.2: org.apache.kafka.common.network.NetworkReceive.
type NetworkReceive struct {
	source  string
	payload []byte
}

// NewNetworkReceive wraps a payload already read (MockSelector, tests).
func NewNetworkReceive(source string, payload []byte) *NetworkReceive {
	return &NetworkReceive{source: source, payload: payload}
}

// Source is the connection id the frame came from.
func (r *NetworkReceive) Source() string { return r.source }

// Payload is the frame without its size prefix.
func (r *NetworkReceive) Payload() []byte { return r.payload }

// ReadNetworkReceive reads one frame from r: the INT32 size, checked by CheckReceiveSize
// against maxSize, then that many bytes. io.EOF means the peer closed between frames;
// io.ErrUnexpectedEOF that it closed inside one.
//
// Kafka 0.10.2: NetworkReceive.readFrom.
func ReadNetworkReceive(r io.Reader, source string, maxSize int) (*NetworkReceive, error) {
	var sizeBuf [4]byte
	if _, err := io.ReadFull(r, sizeBuf[:]); err != nil {
		return nil, err
	}
	size := int32(binary.BigEndian.Uint32(sizeBuf[:]))
	if err := CheckReceiveSize(size, maxSize); err != nil {
		return nil, err
	}
	payload, err := readPayload(r, int(size))
	if err != nil {
		return nil, err
	}
	return &NetworkReceive{source: source, payload: payload}, nil
}

func readPayload(r io.Reader, size int) ([]byte, error) {
	if size <= receiveChunk {
		b := make([]byte, size)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, eofInside(err)
		}
		return b, nil
	}
	b := make([]byte, 0, receiveChunk)
	for len(b) < size {
		n := min(size-len(b), max(cap(b)-len(b), receiveChunk))
		if cap(b)-len(b) < n {
			nb := make([]byte, len(b), min(size, 2*cap(b)))
			copy(nb, b)
			b = nb
			n = min(n, cap(b)-len(b))
		}
		m, err := io.ReadFull(r, b[len(b):len(b)+n])
		b = b[:len(b)+m]
		if err != nil {
			return nil, eofInside(err)
		}
	}
	return b, nil
}

func eofInside(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
