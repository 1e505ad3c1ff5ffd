package main

// The floor: a "raw broker", the least a 0.10.2 broker must do for the benchmark's clients, run
// in a child process of its own (-raw-serve) so that its CPU time is read like the others'.
//
// Produce (v0-v2): the frame is read off the socket into a buffer reused by the connection, each
// message's CRC is checked (0.10.2's Message.ensureValid), the offsets are assigned in place
// and the partition's message set is appended to its file with one pwrite (zkafka's
// FileRecords.append pattern), then the response is written. Fetch (v0-v3): the response
// header is written and the records follow from the file with sendfile(2), from the exact
// position of the fetch offset (a full in-memory position per offset: no index lookup, no
// scan). Its sockets get the same buffer sizes as a 0.10.2 broker's defaults (100 KiB), so a
// large fetch response takes the same number of sendfile calls. Fetches at the log end wait for an append up to max_wait_ms. ApiVersions, Metadata
// and ListOffsets are answered with the project's protocol codecs (not on the measured path).
//
// Nothing here is a Kafka class: it is a measuring stick with no replication, no purgatory,
// no segments, no index files, no quotas, no metrics and no request queue.

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
)

// socketBufferBytes is SO_SNDBUF and SO_RCVBUF of the floor's connections: 0.10.2's default
// socket.send.buffer.bytes and socket.receive.buffer.bytes (102400), which the zkafka target uses.
const socketBufferBytes = 102400

// rawLog is one partition of the raw broker: a file and the position of every offset.
type rawLog struct {
	mu        sync.Mutex
	file      *os.File
	size      int64
	positions []int64       // file position of offset i
	appended  chan struct{} // closed (and replaced) on each append
}

type rawBroker struct {
	dir  string
	port int32
	mu   sync.Mutex
	logs map[string]*rawLog // topic -> partition 0
}

func (b *rawBroker) log(topic string) (*rawLog, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if l, ok := b.logs[topic]; ok {
		return l, nil
	}
	f, err := os.OpenFile(filepath.Join(b.dir, topic+"-0.log"), os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	l := &rawLog{file: f, appended: make(chan struct{})}
	b.logs[topic] = l
	return l, nil
}

// serveRaw is the child process: the raw broker on 127.0.0.1:port until SIGTERM.
func serveRaw(port int, dir string) int {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "raw broker:", err)
		return 1
	}
	b := &rawBroker{dir: dir, port: int32(port), logs: map[string]*rawLog{}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tc := c.(*net.TCPConn)
			// Kafka's default socket.send.buffer.bytes / socket.receive.buffer.bytes, as the zkafka
			// target runs with: a 1 MB fetch then goes out in several sendfile calls here too.
			_ = tc.SetWriteBuffer(socketBufferBytes)
			_ = tc.SetReadBuffer(socketBufferBytes)
			go b.serveConn(tc)
		}
	}()
	fmt.Println("raw broker ready on", ln.Addr())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	ln.Close()
	return 0
}

var errCorrupt = errors.New("corrupt message")

func (b *rawBroker) serveConn(c *net.TCPConn) {
	defer c.Close()
	r := bufio.NewReaderSize(c, 64<<10)
	var frame, out []byte
	var size [4]byte
	for {
		if _, err := io.ReadFull(r, size[:]); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(size[:]))
		if cap(frame) < n {
			frame = make([]byte, n)
		}
		frame = frame[:n]
		if _, err := io.ReadFull(r, frame); err != nil {
			return
		}
		h, body, err := protocol.ReadRequestHeader(frame)
		if err != nil {
			return
		}
		out = out[:0]
		switch h.ApiKey {
		case protocol.Produce:
			out, err = b.produce(out, h, body)
			if err == nil && out != nil {
				_, err = c.Write(out)
			}
		case protocol.Fetch:
			err = b.fetch(c, h, body)
		default:
			err = b.other(c, h, body)
		}
		if err != nil {
			if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) { // a client that left
				fmt.Fprintln(os.Stderr, "raw broker:", h.ApiKey, err)
			}
			return
		}
	}
}

// rd is a minimal big-endian reader over a request body.
type rd struct {
	b   []byte
	err error
}

func (r *rd) take(n int) []byte {
	if r.err != nil || n < 0 || len(r.b) < n {
		r.err = io.ErrUnexpectedEOF
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}
func (r *rd) i16() int16 {
	if v := r.take(2); v != nil {
		return int16(binary.BigEndian.Uint16(v))
	}
	return 0
}
func (r *rd) i32() int32 {
	if v := r.take(4); v != nil {
		return int32(binary.BigEndian.Uint32(v))
	}
	return 0
}
func (r *rd) i64() int64 {
	if v := r.take(8); v != nil {
		return int64(binary.BigEndian.Uint64(v))
	}
	return 0
}
func (r *rd) str() string { return string(r.take(int(r.i16()))) }

func appendStr(dst []byte, s string) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(s)))
	return append(dst, s...)
}

// produce handles a Produce v0-v2 request; it returns nil bytes for acks=0.
func (b *rawBroker) produce(out []byte, h protocol.RequestHeader, body []byte) ([]byte, error) {
	r := rd{b: body}
	acks := r.i16()
	r.i32() // timeout
	out = append(out, 0, 0, 0, 0)
	out = binary.BigEndian.AppendUint32(out, uint32(h.CorrelationID))
	nt := int(r.i32())
	out = binary.BigEndian.AppendUint32(out, uint32(nt))
	for t := 0; t < nt && r.err == nil; t++ {
		topic := r.str()
		out = appendStr(out, topic)
		np := int(r.i32())
		out = binary.BigEndian.AppendUint32(out, uint32(np))
		for p := 0; p < np && r.err == nil; p++ {
			part := r.i32()
			set := r.take(int(r.i32()))
			base, code := int64(-1), int16(0)
			if r.err == nil {
				var err error
				if base, err = b.append(topic, set); errors.Is(err, errCorrupt) {
					code = 2 // CORRUPT_MESSAGE
				} else if err != nil {
					return nil, err
				}
			}
			out = binary.BigEndian.AppendUint32(out, uint32(part))
			out = binary.BigEndian.AppendUint16(out, uint16(code))
			out = binary.BigEndian.AppendUint64(out, uint64(base))
			if h.ApiVersion >= 2 {
				out = binary.BigEndian.AppendUint64(out, ^uint64(0)) // log_append_time -1
			}
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if h.ApiVersion >= 1 {
		out = binary.BigEndian.AppendUint32(out, 0) // throttle_time_ms
	}
	if acks == 0 {
		return nil, nil
	}
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out, nil
}

// append checks every message's CRC, assigns the offsets in place and writes set at the end of
// the topic's file with one pwrite.
func (b *rawBroker) append(topic string, set []byte) (int64, error) {
	l, err := b.log(topic)
	if err != nil {
		return 0, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	base := int64(len(l.positions))
	pos, next, kept := l.size, base, len(l.positions)
	for s := set; len(s) > 0; {
		n := 0
		if len(s) >= 12 {
			n = int(binary.BigEndian.Uint32(s[8:12]))
		}
		if n < 4 || len(s) < 12+n {
			l.positions = l.positions[:kept]
			return 0, errCorrupt
		}
		if crc32.ChecksumIEEE(s[16:12+n]) != binary.BigEndian.Uint32(s[12:16]) {
			l.positions = l.positions[:kept]
			return 0, errCorrupt
		}
		binary.BigEndian.PutUint64(s[0:8], uint64(next))
		l.positions = append(l.positions, pos)
		next++
		pos += int64(12 + n)
		s = s[12+n:]
	}
	if _, err := l.file.WriteAt(set, l.size); err != nil {
		l.positions = l.positions[:kept]
		return 0, err
	}
	l.size = pos
	close(l.appended)
	l.appended = make(chan struct{})
	return base, nil
}

type fetchPart struct {
	part      int32
	offset    int64
	max       int32
	code      int16
	hw        int64
	pos, size int64
	file      *os.File
}

// fetch handles a Fetch v0-v3 request: header bytes, then each partition's records by sendfile.
func (b *rawBroker) fetch(c *net.TCPConn, h protocol.RequestHeader, body []byte) error {
	r := rd{b: body}
	r.i32() // replica_id
	maxWait := time.Duration(r.i32()) * time.Millisecond
	minBytes := r.i32()
	if h.ApiVersion >= 3 {
		r.i32() // max_bytes
	}
	type fetchTopic struct {
		name  string
		parts []fetchPart
	}
	var topics []fetchTopic
	nt := int(r.i32())
	for t := 0; t < nt && r.err == nil; t++ {
		ft := fetchTopic{name: r.str()}
		np := int(r.i32())
		for p := 0; p < np && r.err == nil; p++ {
			ft.parts = append(ft.parts, fetchPart{part: r.i32(), offset: r.i64(), max: r.i32()})
		}
		topics = append(topics, ft)
	}
	if r.err != nil {
		return r.err
	}
	deadline := time.Now().Add(maxWait)
	for {
		var total int64
		var wait []chan struct{}
		for i := range topics {
			l, err := b.log(topics[i].name)
			if err != nil {
				return err
			}
			for j := range topics[i].parts {
				fp := &topics[i].parts[j]
				l.mu.Lock()
				fp.file, fp.hw, fp.size, fp.code = l.file, int64(len(l.positions)), 0, 0
				switch {
				case fp.offset > fp.hw || fp.offset < 0:
					fp.code = 1 // OFFSET_OUT_OF_RANGE
				case fp.offset < fp.hw:
					fp.pos = l.positions[fp.offset]
					fp.size = min(l.size-fp.pos, int64(fp.max))
				default:
					wait = append(wait, l.appended)
				}
				l.mu.Unlock()
				total += fp.size
			}
		}
		d := time.Until(deadline)
		if total >= int64(max(minBytes, 1)) || d <= 0 || len(wait) == 0 {
			break
		}
		select {
		case <-wait[0]:
		case <-time.After(d):
		}
	}
	hdr := make([]byte, 4, 256)
	hdr = binary.BigEndian.AppendUint32(hdr, uint32(h.CorrelationID))
	if h.ApiVersion >= 1 {
		hdr = binary.BigEndian.AppendUint32(hdr, 0) // throttle_time_ms
	}
	hdr = binary.BigEndian.AppendUint32(hdr, uint32(len(topics)))
	size := int64(0)
	type piece struct {
		hdrEnd int
		fp     *fetchPart
	}
	var pieces []piece
	for i := range topics {
		hdr = appendStr(hdr, topics[i].name)
		hdr = binary.BigEndian.AppendUint32(hdr, uint32(len(topics[i].parts)))
		for j := range topics[i].parts {
			fp := &topics[i].parts[j]
			hdr = binary.BigEndian.AppendUint32(hdr, uint32(fp.part))
			hdr = binary.BigEndian.AppendUint16(hdr, uint16(fp.code))
			hdr = binary.BigEndian.AppendUint64(hdr, uint64(fp.hw))
			hdr = binary.BigEndian.AppendUint32(hdr, uint32(fp.size))
			pieces = append(pieces, piece{len(hdr), fp})
			size += fp.size
		}
	}
	binary.BigEndian.PutUint32(hdr, uint32(int64(len(hdr))-4+size))
	start := 0
	for _, p := range pieces {
		if p.fp.size == 0 {
			continue
		}
		if _, err := c.Write(hdr[start:p.hdrEnd]); err != nil {
			return err
		}
		start = p.hdrEnd
		if err := sendfile(c, p.fp.file, p.fp.pos, p.fp.size); err != nil {
			return err
		}
	}
	_, err := c.Write(hdr[start:])
	return err
}

// sendfile copies size bytes of f from pos to c with sendfile(2), waiting on the poller when the
// socket buffer is full.
func sendfile(c *net.TCPConn, f *os.File, pos, size int64) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	werr := rc.Write(func(out uintptr) bool {
		for size > 0 {
			n, err := syscall.Sendfile(int(out), int(f.Fd()), &pos, int(min(size, 1<<30)))
			if n > 0 {
				size -= int64(n)
			}
			if err == syscall.EAGAIN {
				return false
			}
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				serr = err
				return true
			}
			if n == 0 {
				serr = io.ErrUnexpectedEOF
				return true
			}
		}
		return true
	})
	if werr != nil {
		return werr
	}
	return serr
}

// other answers ApiVersions, Metadata and ListOffsets with the protocol codecs.
func (b *rawBroker) other(c *net.TCPConn, h protocol.RequestHeader, body []byte) error {
	resp := protocol.ResponseHeader{CorrelationID: h.CorrelationID}
	if h.ApiKey == protocol.ApiVersions {
		m := &protocol.ApiVersionsResponse{Version: 0, ApiVersions: []protocol.ApiVersionsResponseApiKey{
			{ApiKey: int16(protocol.Produce), MinVersion: 0, MaxVersion: 2},
			{ApiKey: int16(protocol.Fetch), MinVersion: 0, MaxVersion: 3},
			{ApiKey: int16(protocol.ListOffsets), MinVersion: 0, MaxVersion: 1},
			{ApiKey: int16(protocol.Metadata), MinVersion: 0, MaxVersion: 2},
			{ApiKey: int16(protocol.ApiVersions), MinVersion: 0, MaxVersion: 0},
		}}
		if h.ApiVersion > 0 { // as 0.10.2: UNSUPPORTED_VERSION, empty list, v0 layout
			m.ErrorCode, m.ApiVersions = protocol.ErrUnsupportedVersion.Code, nil
		}
		_, err := protocol.WriteResponse(c, resp, m)
		return err
	}
	req, err := protocol.ParseRequest(h, body)
	if err != nil {
		return err
	}
	switch req := req.(type) {
	case *protocol.MetadataRequest:
		m := &protocol.MetadataResponse{Version: req.Version, ControllerID: 0,
			Brokers: []protocol.MetadataResponseBroker{{NodeID: 0, Host: "127.0.0.1", Port: b.port}}}
		topics := req.Topics
		if topics == nil {
			b.mu.Lock()
			for t := range b.logs {
				topics = append(topics, t)
			}
			b.mu.Unlock()
			sort.Strings(topics)
		}
		for _, t := range topics {
			if _, err := b.log(t); err != nil {
				return err
			}
			m.TopicMetadata = append(m.TopicMetadata, protocol.MetadataResponseTopic{Topic: t,
				PartitionMetadata: []protocol.MetadataResponseTopicPartition{{PartitionID: 0, Leader: 0, Replicas: []int32{0}, Isr: []int32{0}}}})
		}
		_, err = protocol.WriteResponse(c, resp, m)
		return err
	case *protocol.ListOffsetRequest:
		m := &protocol.ListOffsetResponse{Version: req.Version}
		for _, t := range req.Topics {
			l, err := b.log(t.Topic)
			if err != nil {
				return err
			}
			l.mu.Lock()
			end := int64(len(l.positions))
			l.mu.Unlock()
			rt := protocol.ListOffsetResponseTopic{Topic: t.Topic}
			for _, p := range t.Partitions {
				off := end
				if p.Timestamp == -2 {
					off = 0
				}
				rt.PartitionResponses = append(rt.PartitionResponses, protocol.ListOffsetResponseTopicPartition{
					Partition: p.Partition, Timestamp: -1, Offset: off, Offsets: []int64{off}})
			}
			m.Responses = append(m.Responses, rt)
		}
		_, err = protocol.WriteResponse(c, resp, m)
		return err
	}
	return fmt.Errorf("unsupported request %v v%d", h.ApiKey, h.ApiVersion)
}
