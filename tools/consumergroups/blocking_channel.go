package consumergroups

import (
	"net"
	"strconv"
	"time"

	"github.com/zkafka/zkafka/clients/oldclient"
	"github.com/zkafka/zkafka/clients/protocol"
)

// blockingChannel is the one-request-at-a-time connection the tool talks to brokers over.
type blockingChannel = oldclient.BlockingChannel

func connect(host string, port int32, timeout time.Duration) (*blockingChannel, error) {
	return connectAddr(net.JoinHostPort(host, strconv.Itoa(int(port))), timeout)
}

func connectAddr(addr string, timeout time.Duration) (*blockingChannel, error) {
	return oldclient.Connect(addr, "ConsumerGroupCommand", timeout)
}

// roundTrip opens a connection, sends one request and closes it.
func roundTrip(host string, port int32, timeout time.Duration, req, resp protocol.Message) error {
	c, err := connect(host, port, timeout)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Send(req, resp)
}
