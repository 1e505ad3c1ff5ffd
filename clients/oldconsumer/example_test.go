package oldconsumer

import (
	"context"
	"fmt"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/oldclient"
)

// ExampleSimpleConsumer is the low-level API walk of 《Kafka技术内幕》 §3.6 (Kafka's
// SimpleConsumerDemo): find the partition's leader with a metadata request, ask it where the log
// starts, then fetch and print messages from there, moving the offset past each one.
func ExampleSimpleConsumer() {
	ctx := context.Background()
	tp := common.TopicPartition{Topic: "test", Partition: 0}
	brokers, _ := oldclient.ParseBrokerList("localhost:9092")
	md, err := oldclient.FetchTopicMetadata(ctx, []string{tp.Topic}, brokers, "demo", 10*time.Second, 0, nil)
	if err != nil || len(md.TopicMetadata) != 1 {
		return
	}
	var leader oldclient.BrokerEndPoint
	for _, pm := range md.TopicMetadata[0].PartitionMetadata {
		for _, b := range md.Brokers {
			if pm.PartitionID == tp.Partition && b.NodeID == pm.Leader {
				leader = oldclient.BrokerEndPoint{ID: b.NodeID, Host: b.Host, Port: b.Port}
			}
		}
	}
	consumer, err := NewSimpleConsumer(leader.Host, leader.Port, 10*time.Second, "demo", nil, nil)
	if err != nil {
		return
	}
	defer consumer.Close()
	offset, err := consumer.EarliestOrLatestOffset(ctx, tp, EarliestTime, OrdinaryConsumerID)
	if err != nil {
		return
	}
	req := NewFetchRequestBuilder().AddFetch(tp.Topic, tp.Partition, offset, 100000).Build()
	resp, err := consumer.Fetch(ctx, req)
	if err != nil {
		return
	}
	messages, errorCode, _ := MessageSet(resp, tp.Topic, tp.Partition)
	if errorCode != 0 {
		return
	}
	for e, err := range messages.DeepEntries() {
		if err != nil || e.Offset < offset {
			continue // a compressed set may start before the offset asked for
		}
		fmt.Printf("%d: %s\n", e.Offset, e.Record.Value())
		offset = e.NextOffset()
	}
}
