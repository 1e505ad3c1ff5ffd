package network

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReadNetworkReceive: any bytes from a peer either make frames, each no larger than the
// limit and no larger than what arrived, or end in an error; never a panic or a huge allocation.
func FuzzReadNetworkReceive(f *testing.F) {
	f.Add([]byte{0, 0, 0, 3, 'a', 'b', 'c', 0, 0, 0, 0}, 16)
	f.Add([]byte{0x7f, 0xff, 0xff, 0xff, 1, 2}, -1)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, 100)
	f.Add([]byte("HTTP/1.1 200 OK\r\n"), -1)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < -1 {
			max = -1
		}
		r := bytes.NewReader(data)
		for {
			rcv, err := ReadNetworkReceive(r, "src", max)
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrInvalidReceive) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(rcv.Payload()) > len(data) || (max != Unlimited && len(rcv.Payload()) > max) {
				t.Fatalf("frame of %d bytes from %d bytes of input (max %d)", len(rcv.Payload()), len(data), max)
			}
		}
	})
}
