package network

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// trickleReader hands out data in small reads and records the largest buffer it was asked to
// fill.
type trickleReader struct {
	data    io.Reader
	largest int
}

func (r *trickleReader) Read(p []byte) (int, error) {
	r.largest = max(r.largest, len(p))
	return r.data.Read(p[:min(len(p), 64<<10)])
}

// TestReadPayloadAllocatesAsBytesArrive: a frame announcing 100 MB whose sender stops after
// 3 MiB costs 1 MiB chunks for what arrived, not the announcement; a frame that does arrive
// whole is returned intact.
func TestReadPayloadAllocatesAsBytesArrive(t *testing.T) {
	r := &trickleReader{data: strings.NewReader(strings.Repeat("x", 3<<20))}
	memory := newMemoryReturner(0, 0)
	if _, err := readPayload(r, 100<<20, memory); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err %v, want unexpected EOF", err)
	}
	if r.largest > 1<<20 {
		t.Errorf("a buffer of %d bytes was offered for 3 MiB that arrived", r.largest)
	}
	body := strings.Repeat("0123456789", 1<<20) // 10 MiB: five 1 MiB chunks, then one buffer
	got, err := readPayload(&trickleReader{data: strings.NewReader(body)}, len(body), memory)
	if err != nil || string(got) != body {
		t.Fatalf("whole frame: %d bytes, %v", len(got), err)
	}
	if memory.ended.Load() < 10<<20 {
		t.Errorf("the 10 MiB receive was not recorded for the memory returner (%d)", memory.ended.Load())
	}
	small := strings.Repeat("y", 1000)
	if got, err := readPayload(strings.NewReader(small), len(small), memory); err != nil || string(got) != small {
		t.Fatalf("small frame: %q %v", got, err)
	}
}
