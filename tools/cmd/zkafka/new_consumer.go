package main

import (
	"context"

	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/tools/consoleconsumer"
)

// newShinyConsumer is the console consumer's new consumer (--bootstrap-server, --new-consumer):
// oldconsumer.NewShinyConsumer on clients/consumer.KafkaConsumer.
func newShinyConsumer(_ context.Context, a consoleconsumer.NewConsumerArgs) (oldconsumer.BaseConsumer, error) {
	return oldconsumer.NewNewShinyConsumer(a.Topic, a.Partition, a.Offset, a.Whitelist, a.Props, a.TimeoutMs, nil)
}
