package commandline

import (
	"io"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/record"
)

// FuzzMessageFormatters: every formatter renders any key and value (consumed from a topic, so
// untrusted) or refuses it with an error, never panics.
func FuzzMessageFormatters(f *testing.F) {
	f.Add([]byte{0, 1, 0, 1, 'g', 0, 1, 't', 0, 0, 0, 0}, []byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0})
	f.Add([]byte{0, 2, 0, 1, 'g'}, []byte{0, 1, 0, 8, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r'})
	f.Add([]byte(nil), []byte{0, 0, 0, 7})
	l := logrus.New()
	l.SetOutput(io.Discard)
	log := logrus.NewEntry(l)
	deser := map[string]string{"print.key": "true", "print.timestamp": "true"}
	f.Fuzz(func(t *testing.T, key, value []byte) {
		for _, class := range []string{DefaultMessageFormatterClass, "kafka.tools.LoggingMessageFormatter", "kafka.tools.ChecksumMessageFormatter",
			"kafka.coordinator.GroupMetadataManager$OffsetsMessageFormatter", "kafka.coordinator.GroupMetadataManager$GroupMetadataMessageFormatter"} {
			fm, err := NewMessageFormatter(class, log)
			if err != nil {
				t.Fatal(err)
			}
			_ = fm.Init(deser)
			_ = fm.WriteTo(ConsumerRecord{Topic: "t", Key: key, Value: value, TimestampType: record.CreateTime, Timestamp: 1}, io.Discard)
		}
		for _, d := range []string{"Integer", "Long", "Double", "String"} {
			fm := &DefaultMessageFormatter{}
			if err := fm.Init(map[string]string{"key.deserializer": "org.apache.kafka.common.serialization." + d + "Deserializer",
				"value.deserializer": "org.apache.kafka.common.serialization." + d + "Deserializer", "print.key": "true"}); err != nil {
				t.Fatal(err)
			}
			_ = fm.WriteTo(ConsumerRecord{Key: key, Value: value}, io.Discard)
		}
	})
}

func TestJavaDoubleToString(t *testing.T) {
	for v, want := range map[float64]string{1: "1.0", 0.001: "0.001", 1e7: "1.0E7", 1.5e-5: "1.5E-5", 123456.789: "123456.789", -2.5e10: "-2.5E10"} {
		if got := JavaDoubleToString(v); got != want {
			t.Errorf("%v: %q, want %q", v, got, want)
		}
	}
}
