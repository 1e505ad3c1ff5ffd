package integration

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/producer"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/serialization"
)

// Against a real broker: a topic that does not exist, with auto.create.topics.enable=false,
// fails after max.block.ms with Kafka's message; a record the broker refuses as too large
// (max.message.bytes) fails its callback with RecordTooLargeException; a record over
// max.request.size never leaves the client. None of it hangs.
func TestProducerErrorsAgainstBroker(t *testing.T) {
	b := startTestBroker(t, map[string]string{"auto.create.topics.enable": "false"})
	b.createTopic(t, "small", 1, map[string]string{"max.message.bytes": "2000"})
	p, err := producer.NewKafkaProducer[[]byte, []byte](map[string]string{"bootstrap.servers": b.addr, "max.block.ms": "1500",
		"max.request.size": "100000", "retries": "3"}, serialization.ByteArraySerializer{}, serialization.ByteArraySerializer{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(10 * time.Second) //nolint:errcheck

	start := time.Now()
	var cbErr error
	f, err := p.Send(producer.NewProducerRecord("absent", []byte("k"), []byte("v")), func(_ *producer.RecordMetadata, err error) { cbErr = err })
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Get(within(t, 30*time.Second))
	took := time.Since(start)
	if !errors.Is(err, protocol.ErrRequestTimedOut) || protocol.ExceptionMessage(err) != "Failed to update metadata after 1500 ms." || cbErr != err {
		t.Fatalf("absent topic: %v (callback %v)", err, cbErr)
	}
	if took < 1400*time.Millisecond || took > 10*time.Second {
		t.Fatalf("absent topic failed after %v", took)
	}

	f, err = p.Send(producer.NewProducerRecord("small", []byte("k"), make([]byte, 5000)), func(_ *producer.RecordMetadata, err error) { cbErr = err })
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Get(within(t, 30*time.Second))
	if !errors.Is(err, protocol.ErrMessageTooLarge) || protocol.ExceptionName(err) != "org.apache.kafka.common.errors.RecordTooLargeException" || cbErr != err {
		t.Fatalf("broker-side too large: %v", err)
	}
	f, err = p.Send(producer.NewProducerRecord("small", []byte("k"), make([]byte, 200_000)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err = f.Get(within(t, 30*time.Second)); !errors.Is(err, protocol.ErrMessageTooLarge) ||
		!strings.Contains(err.Error(), "larger than the maximum request size you have configured with the max.request.size configuration") {
		t.Fatalf("client-side too large: %v", err)
	}
	// The producer still works.
	f, err = p.Send(producer.NewProducerRecord("small", []byte("k"), []byte("fine")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if md, err := f.Get(within(t, 30*time.Second)); err != nil || md.Offset != 0 {
		t.Fatalf("after the errors: %v %v", md, err)
	}
}
