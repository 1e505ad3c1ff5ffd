package producer_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zkafka/zkafka/clients/producer"
	"github.com/zkafka/zkafka/clients/serialization"
)

// ExampleKafkaProducer sends records asynchronously with a callback, and one synchronously
// (Send, then Get on its future), as Kafka's examples/Producer.java does.
func ExampleKafkaProducer() {
	props := map[string]string{
		"bootstrap.servers": "localhost:9092",
		"client.id":         "DemoProducer",
		"acks":              "all",
		"retries":           "3",
	}
	p, err := producer.NewKafkaProducer[int32, string](props, serialization.IntegerSerializer{}, &serialization.StringSerializer{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close(30 * time.Second) //nolint:errcheck
	for i := int32(0); i < 10; i++ {
		start := time.Now()
		_, err := p.Send(producer.NewProducerRecord("topic1", i, fmt.Sprintf("Message_%d", i)), func(md *producer.RecordMetadata, err error) {
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Printf("message(%d) sent to partition(%d), offset(%d) in %d ms\n", i, md.Partition, md.Offset, time.Since(start).Milliseconds())
		})
		if err != nil {
			fmt.Println(err)
		}
	}
	f, err := p.Send(producer.NewProducerRecord("topic1", int32(10), "Message_10"), nil)
	if err == nil {
		if md, err := f.Get(context.Background()); err == nil {
			fmt.Println("Sent message: (10, Message_10) at offset", md.Offset)
		}
	}
}
