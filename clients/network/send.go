package network

import "io"

// Send is a sequence of bytes queued for one connection.
//
// Kafka 0.10.2: org.apache.kafka.common.network.Send.
type Send interface {
	// Destination is the connection id the bytes go to.
	Destination() string
	// Completed reports whether every byte was written.
	Completed() bool
	// Size is the number of bytes the send writes.
	Size() int64
	// WriteTo writes the bytes to w; once it returns without error the send is complete.
	WriteTo(w io.Writer) (int64, error)
}
