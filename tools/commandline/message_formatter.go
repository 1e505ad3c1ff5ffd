package commandline

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/coordinator"
)

// ConsumerRecord is what a formatter gets: one consumed message with its coordinates.
//
// Kafka 0.10.2: the ConsumerRecord[Array[Byte], Array[Byte]] the console consumer and
// SimpleConsumerShell hand to MessageFormatter.writeTo.
type ConsumerRecord struct {
	Topic         string
	Partition     int32
	Offset        int64
	Timestamp     int64
	TimestampType record.TimestampType
	Key           []byte // nil: no key
	Value         []byte // nil: null value
}

// MessageFormatter renders consumed messages for the console consumer and SimpleConsumerShell.
//
// Kafka 0.10.2: kafka.common.MessageFormatter (init, writeTo, close); the implementations are
// picked by Kafka's class names with NewMessageFormatter.
type MessageFormatter interface {
	Init(props map[string]string) error
	WriteTo(r ConsumerRecord, w io.Writer) error
	Close()
}

// DefaultMessageFormatterClass is the console consumer's default --formatter.
const DefaultMessageFormatterClass = "kafka.tools.DefaultMessageFormatter"

// NewMessageFormatter makes the formatter of a Kafka class name; log receives
// LoggingMessageFormatter's lines. An unknown class fails as the JVM's Class.forName does.
func NewMessageFormatter(class string, log *logrus.Entry) (MessageFormatter, error) {
	switch class {
	case DefaultMessageFormatterClass:
		return &DefaultMessageFormatter{}, nil
	case "kafka.tools.LoggingMessageFormatter":
		return &LoggingMessageFormatter{log: log.WithField("logger", "kafka.tools.LoggingMessageFormatter")}, nil
	case "kafka.tools.NoOpMessageFormatter":
		return noOpMessageFormatter{}, nil
	case "kafka.tools.ChecksumMessageFormatter":
		return &ChecksumMessageFormatter{}, nil
	case "kafka.coordinator.GroupMetadataManager$OffsetsMessageFormatter":
		return offsetsMessageFormatter{}, nil
	case "kafka.coordinator.GroupMetadataManager$GroupMetadataMessageFormatter":
		return groupMetadataMessageFormatter{}, nil
	}
	return nil, fmt.Errorf("java.lang.ClassNotFoundException: %s", class)
}

// DefaultMessageFormatter writes [timestamp key-separator] [key key-separator] value
// line-separator, with "null" for a missing key or value. Properties: print.timestamp,
// print.key, key.separator, line.separator, key.deserializer, value.deserializer.
//
// Kafka 0.10.2: kafka.tools.DefaultMessageFormatter. A deserializer's result is printed with
// Java's toString; the deserializers offered are String, Integer, Long, Double and ByteArray
// (whose bytes are printed as they are, where Java would print the array's identity hash).
type DefaultMessageFormatter struct {
	printKey, printTimestamp   bool
	keySeparator, lineSep      []byte
	keyDeserializer, valueDser deserializer
}

// Init implements MessageFormatter.
func (f *DefaultMessageFormatter) Init(props map[string]string) error {
	f.keySeparator, f.lineSep = []byte("\t"), []byte("\n")
	if v, ok := props["print.timestamp"]; ok {
		f.printTimestamp = strings.EqualFold(strings.TrimSpace(v), "true")
	}
	if v, ok := props["print.key"]; ok {
		f.printKey = strings.EqualFold(strings.TrimSpace(v), "true")
	}
	if v, ok := props["key.separator"]; ok {
		f.keySeparator = []byte(v)
	}
	if v, ok := props["line.separator"]; ok {
		f.lineSep = []byte(v)
	}
	var err error
	if v, ok := props["key.deserializer"]; ok {
		if f.keyDeserializer, err = newDeserializer(v); err != nil {
			return err
		}
	}
	if v, ok := props["value.deserializer"]; ok {
		if f.valueDser, err = newDeserializer(v); err != nil {
			return err
		}
	}
	return nil
}

// WriteTo implements MessageFormatter.
func (f *DefaultMessageFormatter) WriteTo(r ConsumerRecord, w io.Writer) error {
	if f.keySeparator == nil {
		_ = f.Init(nil)
	}
	write := func(d deserializer, b, sep []byte) error {
		if b == nil {
			b = []byte("null")
		}
		if d != nil {
			s, err := d(b)
			if err != nil {
				return err
			}
			b = []byte(s)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		_, err := w.Write(sep)
		return err
	}
	if f.printTimestamp {
		ts := "NO_TIMESTAMP"
		if r.TimestampType != record.NoTimestampType {
			ts = fmt.Sprintf("%s:%d", r.TimestampType, r.Timestamp)
		}
		if _, err := io.WriteString(w, ts); err != nil {
			return err
		}
		if _, err := w.Write(f.keySeparator); err != nil {
			return err
		}
	}
	if f.printKey {
		if err := write(f.keyDeserializer, r.Key, f.keySeparator); err != nil {
			return err
		}
	}
	return write(f.valueDser, r.Value, f.lineSep)
}

// Close implements MessageFormatter.
func (f *DefaultMessageFormatter) Close() {}

// deserializer renders bytes as the Java deserializer's result's toString.
type deserializer func([]byte) (string, error)

func newDeserializer(class string) (deserializer, error) {
	switch class {
	case "org.apache.kafka.common.serialization.StringDeserializer":
		return func(b []byte) (string, error) { return string(b), nil }, nil
	case "org.apache.kafka.common.serialization.ByteArrayDeserializer":
		return func(b []byte) (string, error) { return string(b), nil }, nil
	case "org.apache.kafka.common.serialization.IntegerDeserializer":
		return func(b []byte) (string, error) {
			if len(b) != 4 {
				return "", fmt.Errorf("org.apache.kafka.common.errors.SerializationException: Size of data received by IntegerDeserializer is not 4")
			}
			return strconv.FormatInt(int64(int32(binary.BigEndian.Uint32(b))), 10), nil
		}, nil
	case "org.apache.kafka.common.serialization.LongDeserializer":
		return func(b []byte) (string, error) {
			if len(b) != 8 {
				return "", fmt.Errorf("org.apache.kafka.common.errors.SerializationException: Size of data received by LongDeserializer is not 8")
			}
			return strconv.FormatInt(int64(binary.BigEndian.Uint64(b)), 10), nil
		}, nil
	case "org.apache.kafka.common.serialization.DoubleDeserializer":
		return func(b []byte) (string, error) {
			if len(b) != 8 {
				return "", fmt.Errorf("org.apache.kafka.common.errors.SerializationException: Size of data received by Deserializer is not 8")
			}
			return JavaDoubleToString(math.Float64frombits(binary.BigEndian.Uint64(b))), nil
		}, nil
	}
	return nil, fmt.Errorf("deserializer %s is not supported by zkafka's formatter (String, ByteArray, Integer, Long and Double are)", class)
}

// JavaDoubleToString formats as Java's Double.toString (common.JavaDoubleToString).
func JavaDoubleToString(d float64) string { return common.JavaDoubleToString(d) }

// LoggingMessageFormatter writes like DefaultMessageFormatter and also logs each message at
// INFO on the kafka.tools.LoggingMessageFormatter logger.
//
// Kafka 0.10.2: kafka.tools.LoggingMessageFormatter.
type LoggingMessageFormatter struct {
	DefaultMessageFormatter
	log *logrus.Entry
}

// WriteTo implements MessageFormatter.
func (f *LoggingMessageFormatter) WriteTo(r ConsumerRecord, w io.Writer) error {
	if err := f.DefaultMessageFormatter.WriteTo(r, w); err != nil {
		return err
	}
	ts := ""
	if r.TimestampType != record.NoTimestampType {
		ts = fmt.Sprintf("%s:%d, ", r.TimestampType, r.Timestamp)
	}
	str := func(b []byte) string {
		if b == nil {
			return "null"
		}
		return string(b)
	}
	f.log.Infof("%skey:%s, value:%s", ts, str(r.Key), str(r.Value))
	return nil
}

// noOpMessageFormatter writes nothing (kafka.tools.NoOpMessageFormatter).
type noOpMessageFormatter struct{}

func (noOpMessageFormatter) Init(map[string]string) error            { return nil }
func (noOpMessageFormatter) WriteTo(ConsumerRecord, io.Writer) error { return nil }
func (noOpMessageFormatter) Close()                                  {}

// ChecksumMessageFormatter writes "[topic:]checksum:<crc>" per message: the CRC of the message
// rebuilt uncompressed (v1 with its timestamp, or v0 without one).
//
// Kafka 0.10.2: kafka.tools.ChecksumMessageFormatter (property topic).
type ChecksumMessageFormatter struct{ topicStr string }

// Init implements MessageFormatter.
func (f *ChecksumMessageFormatter) Init(props map[string]string) error {
	if t, ok := props["topic"]; ok {
		f.topicStr = t + ":"
	}
	return nil
}

// WriteTo implements MessageFormatter.
func (f *ChecksumMessageFormatter) WriteTo(r ConsumerRecord, w io.Writer) error {
	magic, ts, tsType := record.MagicValueV1, r.Timestamp, r.TimestampType
	if r.TimestampType == record.NoTimestampType {
		magic, ts, tsType = record.MagicValueV0, record.NoTimestamp, record.CreateTime
	}
	b, err := record.BuildRecord(magic, ts, r.Key, r.Value, record.NONE, tsType)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%schecksum:%d\n", f.topicStr, record.NewRecordFromBytes(b).Checksum())
	return err
}

// Close implements MessageFormatter.
func (f *ChecksumMessageFormatter) Close() {}

// offsetsMessageFormatter prints the offset commits of __consumer_offsets:
// "[group,topic,partition]::[OffsetMetadata[o,meta],CommitTime c,ExpirationTime e]".
//
// Kafka 0.10.2: kafka.coordinator.GroupMetadataManager$OffsetsMessageFormatter.
type offsetsMessageFormatter struct{}

func (offsetsMessageFormatter) Init(map[string]string) error { return nil }
func (offsetsMessageFormatter) Close()                       {}

func (offsetsMessageFormatter) WriteTo(r ConsumerRecord, w io.Writer) error {
	if r.Key == nil {
		return nil
	}
	key, err := coordinator.ReadMessageKey(r.Key)
	if err != nil {
		return err
	}
	k, ok := key.(coordinator.OffsetKey)
	if !ok {
		return nil
	}
	value := "NULL"
	if r.Value != nil {
		v, err := coordinator.ReadOffsetMessageValue(r.Value)
		if err != nil {
			return err
		}
		value = v.String()
	}
	_, err = fmt.Fprintf(w, "%s::%s\n", k, value)
	return err
}

// groupMetadataMessageFormatter prints the group metadata records of __consumer_offsets:
// "group::[group,protocolType,state,members]".
//
// Kafka 0.10.2: kafka.coordinator.GroupMetadataManager$GroupMetadataMessageFormatter.
type groupMetadataMessageFormatter struct{}

func (groupMetadataMessageFormatter) Init(map[string]string) error { return nil }
func (groupMetadataMessageFormatter) Close()                       {}

func (groupMetadataMessageFormatter) WriteTo(r ConsumerRecord, w io.Writer) error {
	if r.Key == nil {
		return nil
	}
	key, err := coordinator.ReadMessageKey(r.Key)
	if err != nil {
		return err
	}
	k, ok := key.(coordinator.GroupMetadataKeyData)
	if !ok {
		return nil
	}
	value := "NULL"
	if r.Value != nil {
		g, err := coordinator.ReadGroupMessageValue(k.Group, r.Value)
		if err != nil {
			return err
		}
		value = g.String()
	}
	_, err = fmt.Fprintf(w, "%s::%s\n", k.Group, value)
	return err
}

// IsOutputError tells a failed write on the tool's output (Java's PrintStream.checkError: the
// reader went away) from a formatter that could not render a message.
func IsOutputError(err error) bool {
	var pe *os.PathError
	return errors.As(err, &pe) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
}
