package recorder

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"

	"github.com/zkafka/zkafka/clients/network"
)

// apiVersionsKey is the api_key of ApiVersions (docs/formats.md §2.3).
const apiVersionsKey = 18

// maxFrameSize bounds a captured frame; clients in the capture scenarios send a few kilobytes.
const maxFrameSize = 16 << 20

// Frame is one request as the client put it on the wire, without the 4-byte size prefix.
//
// Kafka 0.10.2: the bytes of org.apache.kafka.common.network.NetworkReceive's payload.
type Frame struct {
	Seq           int   // arrival order across the Listener's connections, from 0
	Conn          int   // connection number, from 0, in accept order
	APIKey        int16 // request header api_key
	APIVersion    int16 // request header api_version
	CorrelationID int32
	Bytes         []byte
}

// FileName is the capture file name of f: <NNN>-<apikey>-v<version>.bin.
func (f Frame) FileName() string {
	return fmt.Sprintf("%03d-%02d-v%d.bin", f.Seq, f.APIKey, f.APIVersion)
}

// Listener is a recording net.Listener for sarama.NewMockBrokerListener.
//
// Kafka 0.10.2: stands in front of what kafka.network.SocketServer would read.
type Listener struct {
	net.Listener

	// MaxPerKey caps the frames kept per api key (0 = keep all). Consumers poll Fetch in a loop
	// against a mock broker; the cap keeps the captures small and deterministic in count.
	MaxPerKey int

	// Intercept, when set, may answer a request itself (returning the whole size-prefixed
	// response frame and true) instead of passing it to the mock broker. Scenarios use it for
	// requests sarama's decoder rejects but a 0.10.2 broker accepts, such as librdkafka's magic-0
	// LZ4 blocks with the pre-KAFKA-3160 header checksum.
	Intercept func(apiKey, apiVersion int16, correlationID uint32, frame []byte) ([]byte, bool)

	mu     sync.Mutex
	frames []Frame
	perKey map[int16]int
	seq    int
	nconn  int
}

// Listen starts a recording listener on 127.0.0.1 with an ephemeral port.
func Listen() (*Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("recorder: listen: %w", err)
	}
	return &Listener{Listener: ln, perKey: map[int16]int{}}, nil
}

// Accept wraps the next client connection in a recording conn.
func (l *Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	id := l.nconn
	l.nconn++
	l.mu.Unlock()
	return &conn{Conn: c, l: l, id: id}, nil
}

// Frames returns a copy of the frames recorded so far, in arrival order.
func (l *Listener) Frames() []Frame {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Frame(nil), l.frames...)
}

// record keeps frame (unless its key is over the cap) and returns its parsed header fields.
func (l *Listener) record(connID int, frame []byte) (key, version int16) {
	key = int16(binary.BigEndian.Uint16(frame[0:2]))
	version = int16(binary.BigEndian.Uint16(frame[2:4]))
	corr := int32(binary.BigEndian.Uint32(frame[4:8]))
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.MaxPerKey > 0 && l.perKey[key] >= l.MaxPerKey {
		return key, version
	}
	l.perKey[key]++
	l.frames = append(l.frames, Frame{
		Seq: l.seq, Conn: connID, APIKey: key, APIVersion: version, CorrelationID: corr,
		Bytes: append([]byte(nil), frame...),
	})
	l.seq++
	return key, version
}

// conn hands whole frames to the mock broker and answers ApiVersions itself.
type conn struct {
	net.Conn
	l       *Listener
	id      int
	pending []byte // the rest of the frame (with size prefix) not yet read by the mock broker
}

// Read returns bytes of the client's frames, one frame at a time, after recording each.
func (c *conn) Read(p []byte) (int, error) {
	for len(c.pending) == 0 {
		frame, err := readFrame(c.Conn)
		if err != nil {
			return 0, err
		}
		key, version := c.l.record(c.id, frame[4:])
		corr := binary.BigEndian.Uint32(frame[8:12])
		var resp []byte
		if key == apiVersionsKey {
			resp = APIVersionsResponse(corr, version)
		} else if c.l.Intercept != nil {
			if r, ok := c.l.Intercept(key, version, corr, frame[4:]); ok {
				resp = r
			}
		}
		if resp != nil {
			if _, err := c.Conn.Write(resp); err != nil {
				return 0, err
			}
			continue
		}
		c.pending = frame
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// readFrame reads one size-prefixed request (as network.NetworkReceive, at most maxFrameSize
// bytes; at least a request header's fixed 8) and returns it with its prefix.
func readFrame(r io.Reader) ([]byte, error) {
	rcv, err := network.ReadNetworkReceive(r, "", maxFrameSize)
	if err != nil {
		return nil, err
	}
	payload := rcv.Payload()
	if len(payload) < 8 {
		return nil, fmt.Errorf("recorder: bad request size %d", len(payload))
	}
	frame := network.AppendFrameHeader(make([]byte, 0, network.FrameHeaderSize+len(payload)))
	return network.NewNetworkSend("", append(frame, payload...)).Frame(), nil
}

// apiVersions0102 is the (api_key, min, max) table a 0.10.2 broker advertises (docs/formats.md §2.3).
var apiVersions0102 = [21][3]int16{
	{0, 0, 2}, {1, 0, 3}, {2, 0, 1}, {3, 0, 2}, {4, 0, 0}, {5, 0, 0}, {6, 0, 3}, {7, 1, 1},
	{8, 0, 2}, {9, 0, 2}, {10, 0, 0}, {11, 0, 1}, {12, 0, 0}, {13, 0, 0}, {14, 0, 0},
	{15, 0, 0}, {16, 0, 0}, {17, 0, 0}, {18, 0, 0}, {19, 0, 1}, {20, 0, 0},
}

// APIVersionsResponse is the whole size-prefixed frame a 0.10.2 broker writes in answer to an
// ApiVersions request of the given version: the v0 table for v0, and for any other version the
// v0 body with error 35 (UNSUPPORTED_VERSION) and an empty array, so the client retries with v0.
func APIVersionsResponse(correlationID uint32, version int16) []byte {
	body := []byte{}
	if version == 0 {
		body = binary.BigEndian.AppendUint16(body, 0)
		body = binary.BigEndian.AppendUint32(body, uint32(len(apiVersions0102)))
		for _, e := range apiVersions0102 {
			for _, v := range e {
				body = binary.BigEndian.AppendUint16(body, uint16(v))
			}
		}
	} else {
		body = append(body, 0x00, 0x23, 0, 0, 0, 0)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(4+len(body)))
	out = binary.BigEndian.AppendUint32(out, correlationID)
	return append(out, body...)
}

// WriteDir writes frames into dir as <NNN>-<apikey>-v<version>.bin, replacing any .bin files
// already there so a recapture leaves no stale frames behind.
func WriteDir(dir string, frames []Frame) error {
	if len(frames) == 0 {
		return errors.New("recorder: no frames to write")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.bin"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	for _, f := range frames {
		if err := os.WriteFile(filepath.Join(dir, f.FileName()), f.Bytes, 0o644); err != nil {
			return err
		}
	}
	return nil
}
