package getoffsetshell

import (
	"time"

	"github.com/zkafka/zkafka/clients/oldclient"
)

// blockingChannel is the one-request-at-a-time connection this tool talks to brokers over.
type blockingChannel = oldclient.BlockingChannel

func connect(addr, clientID string, timeout time.Duration) (*blockingChannel, error) {
	return oldclient.Connect(addr, clientID, timeout)
}
