package brokerapiversions

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/tools/commandline"
)

// requestTimeout is AdminClient's default request timeout (5 s in 0.10.2).
const requestTimeout = 5 * time.Second

// clientID is what AdminClient sends (its default client id prefix).
const clientID = "admin-1"

// Node is a broker as the Java client prints it.
//
// Kafka 0.10.2: org.apache.kafka.common.Node.
type Node struct {
	ID   int32
	Host string
	Port int32
	Rack *string
}

func (n Node) String() string {
	rack := "null"
	if n.Rack != nil {
		rack = *n.Rack
	}
	return fmt.Sprintf("%s:%d (id: %d rack: %s)", n.Host, n.Port, n.ID, rack)
}

func (n Node) addr() string { return net.JoinHostPort(n.Host, strconv.Itoa(int(n.Port))) }

// Run is kafka-broker-api-versions.sh; it returns the exit code.
//
// Kafka 0.10.2: BrokerApiVersionsCommand.main.
func Run(_ context.Context, args []string, stdout, stderr io.Writer) int {
	p := commandline.NewOptionParser()
	commandConfig := p.Accepts("command-config", "A property file containing configs to be passed to Admin Client.").
		WithRequiredArg().DescribedAs("command config property file")
	bootstrap := p.Accepts("bootstrap-server", "REQUIRED: The server to connect to.").
		WithRequiredArg().DescribedAs("server(s) to use for bootstrapping")
	opts, err := p.Parse(args...)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	if err := commandline.CheckRequiredArgs(p, opts, bootstrap); err != nil {
		return commandline.Fail(stderr, err)
	}
	if opts.Has(commandConfig) {
		if _, err := os.Stat(opts.ValueOf(commandConfig)); err != nil {
			fmt.Fprintf(stderr, "Exception in thread \"main\" java.io.FileNotFoundException: %s (No such file or directory)\n", opts.ValueOf(commandConfig))
			return 1
		}
	}
	brokers, err := FindAllBrokers(strings.Split(opts.ValueOf(bootstrap), ","))
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" java.lang.RuntimeException: %v\n", err)
		return 1
	}
	for _, b := range brokers {
		versions, err := GetApiVersions(b)
		if err != nil {
			fmt.Fprintf(stdout, "%s -> ERROR: %s\n", b, javaException(err))
			continue
		}
		fmt.Fprintf(stdout, "%s -> %s\n", b, NodeApiVersionsString(versions, true))
	}
	return 0
}

func javaException(err error) string {
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return "org.apache.kafka.common.errors.TimeoutException: " + err.Error()
	}
	return "java.io.IOException: " + err.Error()
}

// FindAllBrokers asks the bootstrap servers, in order, for the cluster's
// brokers (a Metadata request for all topics) and returns them in the order
// of the answer.
//
// Kafka 0.10.2: AdminClient.findAllBrokers (via sendAnyNode).
func FindAllBrokers(bootstrap []string) ([]Node, error) {
	var failed []string
	for _, addr := range bootstrap {
		addr = strings.TrimSpace(addr)
		c, err := connect(addr, clientID, requestTimeout)
		if err != nil {
			failed = append(failed, addr)
			continue
		}
		resp := &protocol.MetadataResponse{Version: 2}
		err = c.Send(&protocol.MetadataRequest{Version: 2}, resp)
		c.Close()
		if err != nil {
			failed = append(failed, addr)
			continue
		}
		nodes := make([]Node, len(resp.Brokers))
		for i, b := range resp.Brokers {
			nodes[i] = Node{ID: b.NodeID, Host: b.Host, Port: b.Port, Rack: b.Rack}
		}
		return nodes, nil
	}
	return nil, fmt.Errorf("Request METADATA failed on brokers List(%s)", strings.Join(failed, ", "))
}

// GetApiVersions asks one broker for its supported versions (ApiVersions v0).
//
// Kafka 0.10.2: AdminClient.getApiVersions.
func GetApiVersions(n Node) ([]protocol.ApiVersionsResponseApiKey, error) {
	c, err := connect(n.addr(), clientID, requestTimeout)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	resp := &protocol.ApiVersionsResponse{Version: 0}
	if err := c.Send(&protocol.ApiVersionsRequest{Version: 0}, resp); err != nil {
		return nil, err
	}
	if resp.ErrorCode != 0 {
		return nil, protocol.ErrorForCode(resp.ErrorCode)
	}
	return resp.ApiVersions, nil
}

// NodeApiVersionsString renders a broker's versions as NodeApiVersions.toString:
// keys ascending, "min to max" (or one number), the usable version of this
// client, UNKNOWN for keys this client does not know and UNSUPPORTED for keys
// the broker lacks.
//
// Kafka 0.10.2: org.apache.kafka.clients.NodeApiVersions.toString(lineBreaks).
func NodeApiVersionsString(versions []protocol.ApiVersionsResponseApiKey, lineBreaks bool) string {
	text := map[int16]string{}
	for _, v := range versions {
		text[v.ApiKey] = apiVersionToText(v)
	}
	for k := protocol.ApiKeys(0); k <= protocol.MaxApiKey; k++ {
		if _, ok := text[int16(k)]; !ok {
			text[int16(k)] = fmt.Sprintf("%s(%d): UNSUPPORTED", k, int16(k))
		}
	}
	keys := make([]int16, 0, len(text))
	for k := range text {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = text[k]
	}
	if lineBreaks {
		return "(\n\t" + strings.Join(parts, ",\n\t") + "\n)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func apiVersionToText(v protocol.ApiVersionsResponseApiKey) string {
	var b strings.Builder
	key := protocol.ApiKeys(v.ApiKey)
	if key.IsValid() {
		fmt.Fprintf(&b, "%s(%d): ", key, v.ApiKey)
	} else {
		fmt.Fprintf(&b, "UNKNOWN(%d): ", v.ApiKey)
	}
	if v.MinVersion == v.MaxVersion {
		fmt.Fprintf(&b, "%d", v.MinVersion)
	} else {
		fmt.Fprintf(&b, "%d to %d", v.MinVersion, v.MaxVersion)
	}
	if key.IsValid() {
		usable := min(protocol.LatestVersion(key), v.MaxVersion)
		switch {
		case usable < v.MinVersion:
			b.WriteString(" [unusable: node too new]")
		case usable < protocol.OldestVersion(key):
			b.WriteString(" [unusable: node too old]")
		default:
			fmt.Fprintf(&b, " [usable: %d]", usable)
		}
	}
	return b.String()
}
