package consoleproducer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/oldproducer"
	"github.com/zkafka/zkafka/tools/commandline"
)

// OldProducerProps are the old (Scala) producer's properties: the config file, then
// --producer-property, then the options, which win.
//
// Kafka 0.10.2: ConsoleProducer.getOldProducerProps.
func (c *ProducerConfig) OldProducerProps() (map[string]string, error) {
	props, err := c.producerProps()
	if err != nil {
		return nil, err
	}
	producerType := "async"
	if c.Sync {
		producerType = "sync"
	}
	for k, v := range map[string]string{
		"metadata.broker.list":               c.BrokerList,
		"compression.codec":                  c.CompressionCodec,
		"producer.type":                      producerType,
		"batch.num.messages":                 fmt.Sprint(c.BatchSize),
		"message.send.max.retries":           fmt.Sprint(c.MessageSendMaxRetries),
		"retry.backoff.ms":                   fmt.Sprint(c.RetryBackoffMs),
		"queue.buffering.max.ms":             fmt.Sprint(c.SendTimeout),
		"queue.buffering.max.messages":       fmt.Sprint(c.QueueSize),
		"queue.enqueue.timeout.ms":           fmt.Sprint(c.QueueEnqueueTimeoutMs),
		"request.required.acks":              c.RequestRequiredAcks,
		"request.timeout.ms":                 fmt.Sprint(c.RequestTimeoutMs),
		"key.serializer.class":               c.KeyEncoderClass,
		"serializer.class":                   c.ValueEncoderClass,
		"send.buffer.bytes":                  fmt.Sprint(c.SocketBuffer),
		"topic.metadata.refresh.interval.ms": fmt.Sprint(c.MetadataExpiryMs),
		"client.id":                          "console-producer",
	} {
		props[k] = v
	}
	return props, nil
}

// oldExceptionName is the class of an exception the old producer's construction throws.
func oldExceptionName(err error) string {
	var ce *config.ConfigException
	switch msg := err.Error(); {
	case errors.As(err, &ce):
		return "kafka.common.InvalidConfigException"
	case strings.HasPrefix(msg, "requirement failed"):
		return "java.lang.IllegalArgumentException"
	case strings.HasPrefix(msg, "For input string"):
		return "java.lang.NumberFormatException"
	case strings.HasPrefix(msg, "kafka.common.") || strings.HasPrefix(msg, "kafka.producer.") || strings.HasPrefix(msg, "java."):
		return ""
	}
	return "kafka.common.KafkaException"
}

// printOldException prints err as printStackTrace does, the class first unless err's text
// already starts with it.
func printOldException(w io.Writer, err error) int {
	if class := oldExceptionName(err); class != "" {
		return printStackTrace(w, class, err)
	}
	fmt.Fprintln(w, err)
	return 1
}

// runOldProducer is kafka-console-producer --old-producer: each line is a KeyedMessage handed to
// an OldProducer, queued for the ProducerSendThread (async, the default) or sent and
// acknowledged before the next line is read (--sync). A sync send that fails after
// message.send.max.retries, or an async one that finds the queue full past
// --queue-enqueuetimeout-ms, stops the tool with exit 1 as the exception does in 0.10.2; an async
// batch that fails is logged by the send thread and dropped.
//
// Kafka 0.10.2: ConsoleProducer.main with useOldProducer, kafka.producer.OldProducer.
func runOldProducer(ctx context.Context, cfg *ProducerConfig, stdin io.Reader, stderr io.Writer) int {
	props, err := cfg.OldProducerProps()
	if err != nil {
		return printStackTrace(stderr, "java.io.FileNotFoundException", err)
	}
	reader := NewLineMessageReader(stdin, cfg.Topic, cfg.CmdLineProps)
	prod, err := oldproducer.NewOldProducer(props, oldproducer.Deps{Logger: commandline.ToolsLogger(stderr, "kafka.producer.Producer")})
	if err != nil {
		return printOldException(stderr, err)
	}
	defer prod.Close() // the shutdown hook: the send thread empties its queue first
	records, stop := readRecords(reader)
	defer stop()
	for {
		var n next
		select {
		case <-ctx.Done():
			return 130
		case n = <-records:
		}
		switch {
		case errors.Is(n.err, io.EOF):
			return 0
		case n.err != nil:
			return printStackTrace(stderr, "org.apache.kafka.common.KafkaException", n.err)
		}
		if err := prod.Send(ctx, n.rec.Topic, n.rec.Key, n.rec.Value); err != nil {
			if ctx.Err() != nil {
				return 130
			}
			return printOldException(stderr, err)
		}
	}
}
