package systemtests

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/IBM/sarama"
)

// Codecs are the producer compression codecs of 0.10.2, by the names kcat and the broker use.
var Codecs = []string{"none", "gzip", "snappy", "lz4"}

// MessageFor is the i-th test message: key "k<i>" and a value of size printable bytes that
// starts with i in ten digits (no tab or newline, so kcat can carry it on a line). Consumers
// regenerate it to compare content without keeping what was sent.
func MessageFor(i, size int) (key, value []byte) {
	key = []byte("k" + strconv.Itoa(i))
	value = make([]byte, size)
	head := fmt.Sprintf("%010d", i)
	n := copy(value, head)
	for j := n; j < size; j++ {
		value[j] = byte('a' + (i+j)%26)
	}
	return key, value
}

// SaramaConfig is a sarama client configuration for version and codec with acks=1, manual
// partitioning and successes returned (so every acknowledgement carries its offset).
func SaramaConfig(version sarama.KafkaVersion, codec string) (*sarama.Config, error) {
	cfg := sarama.NewConfig()
	cfg.Version = version
	cfg.ClientID = "zkafka-systemtests"
	cfg.Producer.RequiredAcks = sarama.WaitForLocal
	cfg.Producer.Return.Successes = true
	cfg.Producer.Return.Errors = true
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	cfg.Producer.Flush.Bytes = 512 << 10
	cfg.Producer.Flush.Frequency = 5 * time.Millisecond
	cfg.Producer.MaxMessageBytes = 900 << 10
	cfg.Producer.Retry.Max = 0
	cfg.Consumer.Fetch.Default = 4 << 20
	cfg.Consumer.Return.Errors = true
	cfg.Metadata.Retry.Max = 20
	cfg.Metadata.Retry.Backoff = 250 * time.Millisecond
	cfg.Net.DialTimeout = 10 * time.Second
	switch codec {
	case "none":
		cfg.Producer.Compression = sarama.CompressionNone
	case "gzip":
		cfg.Producer.Compression = sarama.CompressionGZIP
	case "snappy":
		cfg.Producer.Compression = sarama.CompressionSnappy
	case "lz4":
		cfg.Producer.Compression = sarama.CompressionLZ4
	default:
		return nil, fmt.Errorf("unknown codec %q", codec)
	}
	return cfg, cfg.Validate()
}

// ProduceSpec says what to produce: messages first..first+count-1 (MessageFor), message i to
// partition i % Partitions, each stamped with Timestamp(i) when set.
type ProduceSpec struct {
	Topic      string
	Partitions int
	First      int
	Count      int
	Size       int
	Timestamp  func(i int) time.Time
	// OnAck receives each acknowledgement (called from one goroutine).
	OnAck func(i int, partition int32, offset int64)
}

// SaramaProduce sends spec's messages with an AsyncProducer and waits for every outcome; it
// fails on the first error.
func SaramaProduce(ctx context.Context, addrs []string, cfg *sarama.Config, spec ProduceSpec) error {
	p, err := sarama.NewAsyncProducer(addrs, cfg)
	if err != nil {
		return fmt.Errorf("sarama producer: %w", err)
	}
	errc := make(chan error, 1)
	go func() {
		var first error
		var others []string
		seen := map[string]bool{}
		got := 0
		succ, errs := p.Successes(), p.Errors()
		for succ != nil || errs != nil {
			select {
			case m, ok := <-succ:
				if !ok {
					succ = nil
					continue
				}
				got++
				if spec.OnAck != nil {
					spec.OnAck(m.Metadata.(int), m.Partition, m.Offset)
				}
			case e, ok := <-errs:
				if !ok {
					errs = nil
					continue
				}
				if first == nil {
					first = fmt.Errorf("message %v: %w", e.Msg.Metadata, e.Err)
				}
				// The first error may echo an earlier cause: keep the distinct others too.
				if msg := e.Err.Error(); !seen[msg] && len(seen) < 5 {
					seen[msg] = true
					others = append(others, msg)
				}
			}
		}
		if first == nil && got != spec.Count {
			first = fmt.Errorf("%d of %d messages acknowledged", got, spec.Count)
		} else if len(others) > 1 {
			first = fmt.Errorf("%w (errors seen: %s)", first, strings.Join(others, "; "))
		}
		errc <- first
	}()
	parts := max(spec.Partitions, 1)
	var sendErr error
	for i := spec.First; i < spec.First+spec.Count; i++ {
		k, v := MessageFor(i, spec.Size)
		m := &sarama.ProducerMessage{Topic: spec.Topic, Partition: int32(i % parts), Key: sarama.ByteEncoder(k), Value: sarama.ByteEncoder(v), Metadata: i}
		if spec.Timestamp != nil {
			m.Timestamp = spec.Timestamp(i)
		}
		select {
		case p.Input() <- m:
		case <-ctx.Done():
			sendErr = ctx.Err()
		}
		if sendErr != nil {
			break
		}
	}
	p.AsyncClose()
	err = <-errc
	if sendErr != nil {
		return sendErr
	}
	return err
}

// ConsumedMessage is one message as a consumer saw it.
type ConsumedMessage struct {
	Partition int32
	Offset    int64
	Timestamp time.Time
	Key       []byte
	Value     []byte
}

// SaramaConsume reads partition from offset 0 until count messages were seen, calling fn for
// each (fn's error stops the read). It returns the high watermark of the last fetch.
func SaramaConsume(ctx context.Context, addrs []string, cfg *sarama.Config, topic string, partition int32, count int64, fn func(ConsumedMessage) error) (int64, error) {
	c, err := sarama.NewConsumer(addrs, cfg)
	if err != nil {
		return 0, fmt.Errorf("sarama consumer: %w", err)
	}
	defer c.Close()
	pc, err := c.ConsumePartition(topic, partition, sarama.OffsetOldest)
	if err != nil {
		return 0, fmt.Errorf("consume [%s,%d]: %w", topic, partition, err)
	}
	defer pc.Close()
	var n int64
	for n < count {
		select {
		case m := <-pc.Messages():
			n++
			if err := fn(ConsumedMessage{Partition: m.Partition, Offset: m.Offset, Timestamp: m.Timestamp, Key: m.Key, Value: m.Value}); err != nil {
				return pc.HighWaterMarkOffset(), err
			}
		case e := <-pc.Errors():
			return pc.HighWaterMarkOffset(), fmt.Errorf("consume [%s,%d]: %w", topic, partition, e.Err)
		case <-ctx.Done():
			return pc.HighWaterMarkOffset(), fmt.Errorf("consumed %d of %d from [%s,%d]: %w", n, count, topic, partition, ctx.Err())
		}
	}
	return pc.HighWaterMarkOffset(), nil
}

// KcatBin is the kcat binary.
const KcatBin = "kcat"

// KcatAvailable reports whether kcat is on PATH.
func KcatAvailable() bool { _, err := exec.LookPath(KcatBin); return err == nil }

// KcatProduce pipes messages first, first+step, ... (count of them) to `kcat -P` for one
// partition, key and value separated by a tab; extra are more kcat arguments (-X k=v ...).
func KcatProduce(ctx context.Context, broker, topic string, partition int32, codec string, first, step, count, size int, extra ...string) error {
	args := []string{"-P", "-b", broker, "-t", topic, "-p", strconv.Itoa(int(partition)), "-z", codec, "-K", "\t",
		"-X", "acks=1", "-X", "linger.ms=5", "-X", "message.timeout.ms=120000"}
	args = append(args, extra...)
	cmd := exec.CommandContext(ctx, KcatBin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	var werr error
	for n, i := 0, first; n < count && werr == nil; n, i = n+1, i+step {
		k, v := MessageFor(i, size)
		w.Write(k)
		w.WriteByte('\t')
		w.Write(v)
		werr = w.WriteByte('\n')
	}
	if werr == nil {
		werr = w.Flush()
	}
	in.Close()
	err = cmd.Wait()
	if err == nil && (werr != nil || strings.Contains(stderr.String(), "Delivery failed")) {
		err = fmt.Errorf("kcat producer: %v", werr)
	}
	if err != nil {
		return fmt.Errorf("kcat -P: %w: %s", err, lastLines(stderr.String(), 10))
	}
	return nil
}

// KcatConsume reads count messages of one partition from the beginning with `kcat -C -e` and
// calls fn for each; fewer messages than count before the end of the partition is an error.
func KcatConsume(ctx context.Context, broker, topic string, partition int32, count int64, fn func(ConsumedMessage) error, extra ...string) error {
	args := []string{"-C", "-b", broker, "-t", topic, "-p", strconv.Itoa(int(partition)), "-o", "beginning", "-e",
		"-c", strconv.FormatInt(count, 10), "-f", `%o\t%T\t%k\t%s\n`}
	args = append(args, extra...)
	cmd := exec.CommandContext(ctx, KcatBin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var n int64
	var ferr error
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() && ferr == nil {
		f := bytes.SplitN(sc.Bytes(), []byte("\t"), 4)
		if len(f) != 4 {
			ferr = fmt.Errorf("kcat line %q", sc.Text())
			break
		}
		off, err1 := strconv.ParseInt(string(f[0]), 10, 64)
		ts, err2 := strconv.ParseInt(string(f[1]), 10, 64)
		if err1 != nil || err2 != nil {
			ferr = fmt.Errorf("kcat line %q", sc.Text())
			break
		}
		n++
		ferr = fn(ConsumedMessage{Partition: partition, Offset: off, Timestamp: time.UnixMilli(ts), Key: append([]byte(nil), f[2]...), Value: append([]byte(nil), f[3]...)})
	}
	if ferr != nil {
		_ = cmd.Process.Kill()
	}
	_, _ = io.Copy(io.Discard, out)
	err = cmd.Wait()
	if ferr != nil {
		return ferr
	}
	if err != nil {
		return fmt.Errorf("kcat -C: %w: %s", err, lastLines(stderr.String(), 10))
	}
	if n != count {
		return fmt.Errorf("kcat -C read %d of %d messages from [%s,%d]: %s", n, count, topic, partition, lastLines(stderr.String(), 10))
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ErrContent is returned by the compare helpers when a consumed message is not the one expected.
var ErrContent = errors.New("consumed message differs from the one produced")

// ExpectMessage checks that m is MessageFor(i, size).
func ExpectMessage(m ConsumedMessage, i, size int) error {
	k, v := MessageFor(i, size)
	if !bytes.Equal(m.Key, k) || !bytes.Equal(m.Value, v) {
		return fmt.Errorf("%w: [%d]@%d: got key %q value %.20q..., want message %d", ErrContent, m.Partition, m.Offset, m.Key, m.Value, i)
	}
	return nil
}
