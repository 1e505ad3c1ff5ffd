package brokerapiversions

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

// fakeBroker answers Metadata with the given brokers and ApiVersions with the
// 0.10.2 broker's table.
type fakeBroker struct {
	ln      net.Listener
	brokers func(self int32) []protocol.MetadataResponseBroker
	wg      sync.WaitGroup
	mu      sync.Mutex
	conns   []net.Conn
}

func startFakeBroker(t *testing.T, brokers func(port int32) []protocol.MetadataResponseBroker) *fakeBroker {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeBroker{ln: ln, brokers: brokers}
	f.wg.Add(1)
	go f.accept()
	t.Cleanup(f.close)
	return f
}

func (f *fakeBroker) port() int32 { return int32(f.ln.Addr().(*net.TCPAddr).Port) }

func (f *fakeBroker) accept() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.mu.Unlock()
		f.wg.Add(1)
		go f.serve(c)
	}
}

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
		if _, err := protocol.ParseRequest(h, body); err != nil {
			return
		}
		var resp protocol.Message
		switch h.ApiKey {
		case protocol.Metadata:
			resp = &protocol.MetadataResponse{Version: h.ApiVersion, Brokers: f.brokers(f.port()), ControllerID: 0}
		case protocol.ApiVersions:
			resp = protocol.ApiVersionsResponseFor(h.ApiVersion)
		default:
			return
		}
		if _, err := protocol.WriteResponse(c, protocol.ResponseHeader{CorrelationID: h.CorrelationID}, resp); err != nil {
			return
		}
	}
}

func (f *fakeBroker) close() {
	f.ln.Close()
	f.mu.Lock()
	for _, c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// deadPort returns a local port nothing listens on.
func deadPort(t *testing.T) int32 {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return int32(p)
}

// The 0.10.2 broker's table (docs/formats.md §2.3) as printed by the 0.10.2 tool.
const versions0102 = `(
	Produce(0): 0 to 2 [usable: 2],
	Fetch(1): 0 to 3 [usable: 3],
	Offsets(2): 0 to 1 [usable: 1],
	Metadata(3): 0 to 2 [usable: 2],
	LeaderAndIsr(4): 0 [usable: 0],
	StopReplica(5): 0 [usable: 0],
	UpdateMetadata(6): 0 to 3 [usable: 3],
	ControlledShutdown(7): 1 [usable: 1],
	OffsetCommit(8): 0 to 2 [usable: 2],
	OffsetFetch(9): 0 to 2 [usable: 2],
	GroupCoordinator(10): 0 [usable: 0],
	JoinGroup(11): 0 to 1 [usable: 1],
	Heartbeat(12): 0 [usable: 0],
	LeaveGroup(13): 0 [usable: 0],
	SyncGroup(14): 0 [usable: 0],
	DescribeGroups(15): 0 [usable: 0],
	ListGroups(16): 0 [usable: 0],
	SaslHandshake(17): 0 [usable: 0],
	ApiVersions(18): 0 [usable: 0],
	CreateTopics(19): 0 to 1 [usable: 1],
	DeleteTopics(20): 0 [usable: 0]
)`

func TestBrokerApiVersionsGolden(t *testing.T) {
	dead := deadPort(t)
	rack := "r1"
	f := startFakeBroker(t, func(self int32) []protocol.MetadataResponseBroker {
		return []protocol.MetadataResponseBroker{
			{NodeID: 0, Host: "127.0.0.1", Port: self},
			{NodeID: 1, Host: "127.0.0.1", Port: dead, Rack: &rack},
		}
	})
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"--bootstrap-server", "127.0.0.1:" + strconv.Itoa(int(dead)) + ",127.0.0.1:" + strconv.Itoa(int(f.port()))}, &out, &errOut)
	lines := strings.SplitN(out.String(), "\n", -1)
	want := "127.0.0.1:" + strconv.Itoa(int(f.port())) + " (id: 0 rack: null) -> " + versions0102 + "\n"
	if code != 0 || !strings.HasPrefix(out.String(), want) {
		t.Fatalf("exit %d\n%s\nwant prefix\n%s\nstderr %s", code, out.String(), want, errOut.String())
	}
	last := lines[len(lines)-2]
	if !strings.HasPrefix(last, "127.0.0.1:"+strconv.Itoa(int(dead))+" (id: 1 rack: r1) -> ERROR: java.io.IOException: ") {
		t.Errorf("dead broker line %q", last)
	}
}

func TestNodeApiVersionsString(t *testing.T) {
	got := NodeApiVersionsString([]protocol.ApiVersionsResponseApiKey{
		{ApiKey: 0, MinVersion: 0, MaxVersion: 5}, // newer broker: use our latest (2)
		{ApiKey: 1, MinVersion: 4, MaxVersion: 6}, // too new
		{ApiKey: 7, MinVersion: 0, MaxVersion: 0}, // too old (we need v1)
		{ApiKey: 33, MinVersion: 0, MaxVersion: 1},
	}, false)
	want := "(Produce(0): 0 to 5 [usable: 2], Fetch(1): 4 to 6 [unusable: node too new], Offsets(2): UNSUPPORTED, " +
		"Metadata(3): UNSUPPORTED, LeaderAndIsr(4): UNSUPPORTED, StopReplica(5): UNSUPPORTED, UpdateMetadata(6): UNSUPPORTED, " +
		"ControlledShutdown(7): 0 [unusable: node too old], OffsetCommit(8): UNSUPPORTED, OffsetFetch(9): UNSUPPORTED, " +
		"GroupCoordinator(10): UNSUPPORTED, JoinGroup(11): UNSUPPORTED, Heartbeat(12): UNSUPPORTED, LeaveGroup(13): UNSUPPORTED, " +
		"SyncGroup(14): UNSUPPORTED, DescribeGroups(15): UNSUPPORTED, ListGroups(16): UNSUPPORTED, SaslHandshake(17): UNSUPPORTED, " +
		"ApiVersions(18): UNSUPPORTED, CreateTopics(19): UNSUPPORTED, DeleteTopics(20): UNSUPPORTED, UNKNOWN(33): 0 to 1)"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestUsageAndBootstrapFailure(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), nil, &out, &errOut); code != 1 || !strings.HasPrefix(errOut.String(), `Missing required argument "[bootstrap-server]"`+"\n") {
		t.Errorf("no args: %d %q", code, errOut.String())
	}
	errOut.Reset()
	dead := strconv.Itoa(int(deadPort(t)))
	if code := Run(context.Background(), []string{"--bootstrap-server", "127.0.0.1:" + dead}, &out, &errOut); code != 1 ||
		errOut.String() != "Exception in thread \"main\" java.lang.RuntimeException: Request METADATA failed on brokers List(127.0.0.1:"+dead+")\n" {
		t.Errorf("dead bootstrap: %d %q", code, errOut.String())
	}
}
