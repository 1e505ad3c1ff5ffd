package server

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/server/config"
)

// captureHook keeps every log line, so tests can assert on what a broker logged.
type captureHook struct {
	mu    sync.Mutex
	lines []string
}

func (h *captureHook) Levels() []logrus.Level { return logrus.AllLevels }

func (h *captureHook) Fire(e *logrus.Entry) error {
	h.mu.Lock()
	h.lines = append(h.lines, e.Message)
	h.mu.Unlock()
	return nil
}

func (h *captureHook) contains(sub string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range h.lines {
		if bytes.Contains([]byte(l), []byte(sub)) {
			return true
		}
	}
	return false
}

// linesAfter returns the lines logged after the first one containing mark, that contain sub.
func (h *captureHook) linesAfter(mark, sub string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	seen := false
	for _, l := range h.lines {
		switch {
		case !seen:
			seen = bytes.Contains([]byte(l), []byte(mark))
		case bytes.Contains([]byte(l), []byte(sub)):
			out = append(out, l)
		}
	}
	return out
}

func testLoggers(t testing.TB) (Loggers, *captureHook) {
	l := logrus.New()
	l.SetLevel(logrus.DebugLevel)
	if os.Getenv("ZKAFKA_TRACE") != "" {
		l.SetLevel(logrus.TraceLevel)
	}
	if !testing.Verbose() {
		l.SetOutput(io.Discard)
	}
	h := &captureHook{}
	l.AddHook(h)
	e := logrus.NewEntry(l)
	return Loggers{Server: e, StateChange: e.WithField("logger", "state.change.logger"), Request: e.WithField("logger", "kafka.request.logger")}, h
}

func brokerConfig(t testing.TB, zkConnect, logDir string, extra map[string]string) *config.KafkaConfig {
	props := map[string]string{
		"broker.id": "0", "listeners": "PLAINTEXT://127.0.0.1:0", "log.dirs": logDir, "zookeeper.connect": zkConnect,
		"num.io.threads": "2", "num.network.threads": "2", "zookeeper.session.timeout.ms": "10000",
		"log.cleaner.dedupe.buffer.size": "4194304",
	}
	for k, v := range extra {
		props[k] = v
	}
	c, err := config.FromProps(props)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rawClient sends requests on one connection and reads the answers, as a controller would.
type rawClient struct {
	conn net.Conn
	corr int32
}

func dialRaw(t testing.TB, port int32) *rawClient {
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawClient{conn: c}
}

func (c *rawClient) send(t testing.TB, m protocol.Message, clientID string) {
	c.corr++
	h := protocol.RequestHeader{ApiKey: m.Key(), ApiVersion: m.GetVersion(), CorrelationID: c.corr, ClientID: &clientID}
	if _, err := protocol.WriteRequest(c.conn, h, m); err != nil {
		t.Fatal(err)
	}
}

// roundTrip sends m and decodes the response of the same key and version.
func (c *rawClient) roundTrip(t testing.TB, m protocol.Message) protocol.Message {
	t.Helper()
	c.send(t, m, "test-controller")
	body, err := c.readFrame()
	if err != nil {
		t.Fatal(err)
	}
	rh, rest, err := protocol.ReadResponseHeader(body)
	if err != nil {
		t.Fatal(err)
	}
	if rh.CorrelationID != c.corr {
		t.Fatalf("correlation id %d, want %d", rh.CorrelationID, c.corr)
	}
	version := m.GetVersion()
	if m.Key() == protocol.ApiVersions {
		version = 0
	}
	resp, err := protocol.ParseResponse(m.Key(), version, rest)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func (c *rawClient) readFrame() ([]byte, error) {
	_ = c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var size [4]byte
	if _, err := io.ReadFull(c.conn, size[:]); err != nil {
		return nil, err
	}
	body := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(c.conn, body); err != nil {
		return nil, err
	}
	return body, nil
}

// becomeLeader sends what the controller sends a broker that leads every partition of topic
// alone: LeaderAndIsr, then UpdateMetadata v3.
func becomeLeader(t testing.TB, c *rawClient, brokerID, port int32, topic string, partitions int32, controllerEpoch, leaderEpoch int32) {
	t.Helper()
	lr := &protocol.LeaderAndIsrRequest{Version: 0, ControllerID: brokerID, ControllerEpoch: controllerEpoch,
		LiveLeaders: []protocol.LeaderAndIsrRequestLiveLeader{{ID: brokerID, Host: "127.0.0.1", Port: port}}}
	ur := &protocol.UpdateMetadataRequest{Version: 3, ControllerID: brokerID, ControllerEpoch: controllerEpoch,
		LiveBrokers: []protocol.UpdateMetadataRequestLiveBroker{{ID: brokerID, EndPoints: []protocol.UpdateMetadataRequestLiveBrokerEndPoint{
			{Port: port, Host: "127.0.0.1", ListenerName: "PLAINTEXT", SecurityProtocolType: 0}}}}}
	for p := int32(0); p < partitions; p++ {
		lr.PartitionStates = append(lr.PartitionStates, protocol.LeaderAndIsrRequestPartitionState{Topic: topic, Partition: p,
			ControllerEpoch: controllerEpoch, Leader: brokerID, LeaderEpoch: leaderEpoch, Isr: []int32{brokerID}, ZkVersion: 0, Replicas: []int32{brokerID}})
		ur.PartitionStates = append(ur.PartitionStates, protocol.UpdateMetadataRequestPartitionState{Topic: topic, Partition: p,
			ControllerEpoch: controllerEpoch, Leader: brokerID, LeaderEpoch: leaderEpoch, Isr: []int32{brokerID}, ZkVersion: 0, Replicas: []int32{brokerID}})
	}
	lresp := c.roundTrip(t, lr).(*protocol.LeaderAndIsrResponse)
	if lresp.ErrorCode != 0 || len(lresp.Partitions) != int(partitions) {
		t.Fatalf("LeaderAndIsr response %+v", lresp)
	}
	for _, p := range lresp.Partitions {
		if p.ErrorCode != 0 {
			t.Fatalf("LeaderAndIsr partition %+v", p)
		}
	}
	if uresp := c.roundTrip(t, ur).(*protocol.UpdateMetadataResponse); uresp.ErrorCode != 0 {
		t.Fatalf("UpdateMetadata error %d", uresp.ErrorCode)
	}
}

var _ = fmt.Sprint

func tpOf(topic string, p int32) common.TopicPartition {
	return common.TopicPartition{Topic: topic, Partition: p}
}
