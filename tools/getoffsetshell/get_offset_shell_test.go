package getoffsetshell

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeBroker serves topic "foo": partition 0 led by itself, partition 1
// without a leader, partition 2 led by itself. ListOffsets answers
// latest = 42, earliest = 7, with max_num_offsets of [42, 7].
type fakeBroker struct {
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
	seen  []protocol.RequestHeader
}

func startFakeBroker(t *testing.T) *fakeBroker {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeBroker{ln: ln}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.conns = append(f.conns, c)
			f.mu.Unlock()
			f.wg.Add(1)
			go f.serve(c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		f.mu.Lock()
		for _, c := range f.conns {
			c.Close()
		}
		f.mu.Unlock()
		f.wg.Wait()
	})
	return f
}

func (f *fakeBroker) port() int32 { return int32(f.ln.Addr().(*net.TCPAddr).Port) }

func (f *fakeBroker) serve(c net.Conn) {
	defer f.wg.Done()
	defer c.Close()
	for {
		var size [4]byte
		if _, err := io.ReadFull(c, size[:]); err != nil {
			return
		}
		buf := make([]byte, binary.BigEndian.Uint32(size[:]))
		if _, err := io.ReadFull(c, buf); err != nil {
			return
		}
		h, body, err := protocol.ReadRequestHeader(buf)
		if err != nil {
			return
		}
		req, err := protocol.ParseRequest(h, body)
		if err != nil {
			return
		}
		f.mu.Lock()
		f.seen = append(f.seen, h)
		f.mu.Unlock()
		var resp protocol.Message
		switch r := req.(type) {
		case *protocol.MetadataRequest:
			m := &protocol.MetadataResponse{Version: h.ApiVersion, Brokers: []protocol.MetadataResponseBroker{{NodeID: 3, Host: "127.0.0.1", Port: f.port()}}}
			for _, topic := range r.Topics {
				if topic != "foo" {
					m.TopicMetadata = append(m.TopicMetadata, protocol.MetadataResponseTopic{TopicErrorCode: 3, Topic: topic})
					continue
				}
				m.TopicMetadata = append(m.TopicMetadata, protocol.MetadataResponseTopic{Topic: "foo", PartitionMetadata: []protocol.MetadataResponseTopicPartition{
					{PartitionID: 0, Leader: 3, Replicas: []int32{3}, Isr: []int32{3}},
					{PartitionID: 1, Leader: -1, Replicas: []int32{4}, Isr: []int32{}},
					{PartitionID: 2, Leader: 3, Replicas: []int32{3}, Isr: []int32{3}},
				}})
			}
			resp = m
		case *protocol.ListOffsetRequest:
			l := &protocol.ListOffsetResponse{Version: h.ApiVersion}
			for _, t := range r.Topics {
				rt := protocol.ListOffsetResponseTopic{Topic: t.Topic}
				for _, p := range t.Partitions {
					offsets := []int64{42 + int64(p.Partition), 7}
					if p.Timestamp == -2 {
						offsets = []int64{7}
					}
					rt.PartitionResponses = append(rt.PartitionResponses, protocol.ListOffsetResponseTopicPartition{Partition: p.Partition, Offsets: offsets[:min(int(p.MaxNumOffsets), len(offsets))]})
				}
				l.Responses = append(l.Responses, rt)
			}
			resp = l
		default:
			return
		}
		if _, err := protocol.WriteResponse(c, protocol.ResponseHeader{CorrelationID: h.CorrelationID}, resp); err != nil {
			return
		}
	}
}

func run(args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), code
}

func TestGetOffsetShell(t *testing.T) {
	f := startFakeBroker(t)
	bl := "127.0.0.1:" + strconv.Itoa(int(f.port()))
	out, errOut, code := run("--broker-list", bl, "--topic", "foo")
	if code != 0 || out != "foo:0:42\nfoo:2:44\n" || errOut != "Error: partition 1 does not have a leader. Skip getting offsets\n" {
		t.Errorf("latest: %d %q %q", code, out, errOut)
	}
	out, errOut, code = run("--broker-list", bl, "--topic", "foo", "--time", "-2", "--partitions", "2,9")
	if code != 0 || out != "foo:2:7\n" || errOut != "Error: partition 9 does not exist\n" {
		t.Errorf("earliest: %d %q %q", code, out, errOut)
	}
	out, _, _ = run("--broker-list", bl, "--topic", "foo", "--offsets", "2", "--partitions", "0")
	if out != "foo:0:42,7\n" {
		t.Errorf("two offsets: %q", out)
	}
	f.mu.Lock()
	for _, h := range f.seen {
		if h.ApiVersion != 0 || h.ClientID == nil || *h.ClientID != "GetOffsetShell" {
			t.Errorf("request header %v", h)
		}
	}
	f.mu.Unlock()
}

func TestGetOffsetShellErrors(t *testing.T) {
	_, errOut, code := run()
	if code != 1 || !strings.HasPrefix(errOut, "An interactive shell for getting consumer offsets.\n") {
		t.Errorf("no args: %d %q", code, errOut)
	}
	_, errOut, code = run("--topic", "foo")
	if code != 1 || !strings.HasPrefix(errOut, `Missing required argument "[broker-list]"`+"\n") {
		t.Errorf("no broker list: %d %q", code, errOut)
	}
	_, errOut, code = run("--broker-list", "nohost", "--topic", "foo")
	if code != 1 || !strings.HasPrefix(errOut, "Please provide valid host:port like host1:9091,host2:9092\n \n") {
		t.Errorf("bad broker list: %d %q", code, errOut)
	}
}
