package interop

import (
	"bytes"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

// TestSaramaProducesToZkafka runs sarama's SyncProducer against the fake broker: zkafka's
// ParseRequest and clients/record decode each live Produce request (CRCs, codec, deep entries)
// and zkafka's ProduceResponse tells sarama the offsets, which sarama must report back.
func TestSaramaProducesToZkafka(t *testing.T) {
	codecs := []struct {
		codec  record.CompressionType
		sarama sarama.CompressionCodec
	}{
		{record.NONE, sarama.CompressionNone}, {record.GZIP, sarama.CompressionGZIP},
		{record.SNAPPY, sarama.CompressionSnappy}, {record.LZ4, sarama.CompressionLZ4},
	}
	versions := []struct {
		name    string
		version sarama.KafkaVersion
		magic   int8
		produce int16
	}{
		// sarama at 0.9 sends Produce v0 with magic 0 (and refuses LZ4 below 0.10).
		{"V0_9_0_0", sarama.V0_9_0_0, record.MagicValueV0, 0},
		{"V0_10_2_0", sarama.V0_10_2_0, record.MagicValueV1, 2},
	}
	for _, v := range versions {
		for _, c := range codecs {
			t.Run(v.name+"/"+c.codec.Name(), func(t *testing.T) {
				if v.magic == record.MagicValueV0 && c.codec == record.LZ4 {
					t.Skip("sarama refuses LZ4 below V0_10_0_0")
				}
				const logStart = 42
				broker := startFakeBroker(t, interopTopic, record.NewMemoryRecords(nil), logStart, logStart)
				cfg := sarama.NewConfig()
				cfg.Version = v.version
				cfg.Metadata.Retry.Max = 0
				cfg.Producer.Return.Successes = true
				cfg.Producer.Compression = c.sarama
				cfg.Producer.Partitioner = sarama.NewManualPartitioner
				p, err := sarama.NewSyncProducer([]string{broker.addr()}, cfg)
				if err != nil {
					t.Fatal(err)
				}
				var msgs []*sarama.ProducerMessage
				for i := 0; i < interopCount; i++ {
					key, value := interopMessage(i)
					m := &sarama.ProducerMessage{
						Topic: interopTopic, Partition: 0,
						Timestamp: time.UnixMilli(baseTimestamp + int64(i)*7),
					}
					if key != nil {
						m.Key = sarama.ByteEncoder(key)
					}
					if value != nil {
						m.Value = sarama.ByteEncoder(value)
					}
					msgs = append(msgs, m)
				}
				sendErr := p.SendMessages(msgs)
				if err := p.Close(); err != nil {
					t.Error(err)
				}
				if sendErr != nil {
					t.Fatal(sendErr)
				}
				got := broker.producedMessages()
				if len(got) != interopCount {
					t.Fatalf("broker decoded %d messages, want %d", len(got), interopCount)
				}
				for i, m := range got {
					key, value := interopMessage(i)
					if m.offset != logStart+int64(i) || msgs[i].Offset != m.offset {
						t.Errorf("message %d: broker offset %d, sarama offset %d, want %d", i, m.offset, msgs[i].Offset, logStart+i)
					}
					if m.magic != v.magic || m.codec != c.codec {
						t.Errorf("message %d: magic %d codec %s", i, m.magic, m.codec)
					}
					if !bytes.Equal(m.key, key) || (m.key == nil) != (key == nil) {
						t.Errorf("message %d: key %q, want %q", i, m.key, key)
					}
					// sarama writes a nil ByteEncoder value as null and an empty one as empty.
					if !bytes.Equal(m.value, value) || (m.value == nil) != (value == nil) {
						t.Errorf("message %d: value %q (nil %t), want %q (nil %t)", i, m.value, m.value == nil, value, value == nil)
					}
					want := baseTimestamp + int64(i)*7
					if v.magic == record.MagicValueV0 {
						want = record.NoTimestamp
					}
					if m.timestamp != want {
						t.Errorf("message %d: timestamp %d, want %d", i, m.timestamp, want)
					}
				}
				if got := broker.versions(protocol.Produce); len(got) == 0 || got[0] != v.produce {
					t.Errorf("Produce versions %v, want v%d", got, v.produce)
				}
			})
		}
	}
}
