package consumergroups

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// fakeBroker answers requests with canned responses from handle, one connection at a time.
type fakeBroker struct {
	ln     net.Listener
	host   string
	port   int32
	wg     sync.WaitGroup
	handle func(req protocol.Message) protocol.Message
}

func newFakeBroker(t *testing.T, handle func(b *fakeBroker, req protocol.Message) protocol.Message) *fakeBroker {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	p, _ := strconv.Atoi(port)
	b := &fakeBroker{ln: ln, host: host, port: int32(p)}
	b.handle = func(req protocol.Message) protocol.Message { return handle(b, req) }
	b.wg.Add(1)
	go b.serve()
	t.Cleanup(func() { _ = ln.Close(); b.wg.Wait() })
	return b
}

func (b *fakeBroker) serve() {
	defer b.wg.Done()
	for {
		conn, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			defer conn.Close()
			for {
				var size [4]byte
				if _, err := io.ReadFull(conn, size[:]); err != nil {
					return
				}
				buf := make([]byte, binary.BigEndian.Uint32(size[:]))
				if _, err := io.ReadFull(conn, buf); err != nil {
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
				resp := b.handle(req)
				resp.SetVersion(h.ApiVersion)
				if _, err := protocol.WriteResponse(conn, protocol.ResponseHeader{CorrelationID: h.CorrelationID}, resp); err != nil {
					return
				}
			}
		}()
	}
}

func assignment(tps ...common.TopicPartition) []byte {
	return (&protocol.ConsumerProtocolAssignment{Partitions: tps, UserData: []byte{}}).AppendTo(nil)
}

func TestKafkaDescribeAndList(t *testing.T) {
	handle := func(b *fakeBroker, req protocol.Message) protocol.Message {
		switch r := req.(type) {
		case *protocol.GroupCoordinatorRequest:
			return &protocol.GroupCoordinatorResponse{Coordinator: protocol.GroupCoordinatorResponseCoordinator{NodeID: 0, Host: b.host, Port: b.port}}
		case *protocol.MetadataRequest:
			return &protocol.MetadataResponse{Brokers: []protocol.MetadataResponseBroker{{NodeID: 0, Host: b.host, Port: b.port}},
				TopicMetadata: []protocol.MetadataResponseTopic{
					{Topic: "t", PartitionMetadata: []protocol.MetadataResponseTopicPartition{{PartitionID: 0}, {PartitionID: 1}}},
					{Topic: "u", PartitionMetadata: []protocol.MetadataResponseTopicPartition{{PartitionID: 0}}}}}
		case *protocol.ListGroupsRequest:
			return &protocol.ListGroupsResponse{Groups: []protocol.ListGroupsResponseGroup{{GroupID: "cg", ProtocolType: "consumer"}, {GroupID: "connect-x", ProtocolType: "connect"}}}
		case *protocol.DescribeGroupsRequest:
			return &protocol.DescribeGroupsResponse{Groups: []protocol.DescribeGroupsResponseGroup{{GroupID: r.GroupIds[0], State: "Stable",
				ProtocolType: "consumer", Protocol: "range", Members: []protocol.DescribeGroupsResponseGroupMember{
					{MemberID: "c2-idle", ClientID: "c2", ClientHost: "/127.0.0.2", MemberAssignment: assignment()},
					{MemberID: "c1-busy", ClientID: "c1", ClientHost: "/127.0.0.1", MemberAssignment: assignment(
						common.TopicPartition{Topic: "t", Partition: 1}, common.TopicPartition{Topic: "t", Partition: 0})}}}}}
		case *protocol.OffsetFetchRequest:
			if r.Version != 2 || r.Topics != nil {
				panic(fmt.Sprintf("unexpected offset fetch %+v", r))
			}
			md := ""
			return &protocol.OffsetFetchResponse{Responses: []protocol.OffsetFetchResponseTopic{
				{Topic: "t", PartitionResponses: []protocol.OffsetFetchResponseTopicPartition{{Partition: 0, Offset: 3, Metadata: &md}, {Partition: 1, Offset: 4, Metadata: &md}}},
				{Topic: "u", PartitionResponses: []protocol.OffsetFetchResponseTopicPartition{{Partition: 0, Offset: 1, Metadata: &md}}}}}
		case *protocol.ListOffsetRequest:
			p := r.Topics[0].Partitions[0]
			return &protocol.ListOffsetResponse{Responses: []protocol.ListOffsetResponseTopic{{Topic: r.Topics[0].Topic,
				PartitionResponses: []protocol.ListOffsetResponseTopicPartition{{Partition: p.Partition, Offsets: []int64{10}}}}}}
		}
		panic(fmt.Sprintf("unexpected %T", req))
	}
	b := newFakeBroker(t, handle)
	run := func(args ...string) (string, string) {
		var out, errOut bytes.Buffer
		RunWith(context.Background(), append([]string{"--bootstrap-server", net.JoinHostPort(b.host, strconv.Itoa(int(b.port)))}, args...), &out, &errOut, Deps{})
		return out.String(), errOut.String()
	}
	out, errOut := run("--list")
	if out != "cg\n" || errOut != "Note: This will only show information about consumers that use the Java consumer API (non-ZooKeeper-based consumers).\n\n" {
		t.Fatalf("list: %q %q", out, errOut)
	}
	out, _ = run("--describe", "--group", "cg")
	want := "\n" +
		"TOPIC                          PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG        CONSUMER-ID                                       HOST                           CLIENT-ID\n" +
		"t                              0          3               10              7          c1-busy                                           /127.0.0.1                     c1\n" +
		"t                              1          4               10              6          c1-busy                                           /127.0.0.1                     c1\n" +
		"-                              -          -               -               -          c2-idle                                           /127.0.0.2                     c2\n" +
		"u                              0          1               10              9          -                                                 -                              -\n"
	if out != want {
		t.Fatalf("describe:\n%s\nwant\n%s", out, want)
	}
}
