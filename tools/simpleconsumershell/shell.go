package simpleconsumershell

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/tools/commandline"
)

// errOutputClosed: nobody reads standard output any more.
var errOutputClosed = errors.New("Unable to write to standard out, closing consumer.")

// shell is the "kafka-simpleconsumer-shell" thread's loop.
type shell struct {
	sc                 *oldconsumer.SimpleConsumer
	builder            *oldconsumer.FetchRequestBuilder
	topic              string
	partition          int32
	fetchSize          int32
	maxMessages        int32
	printOffsets       bool
	skipMessageOnError bool
	noWaitAtEndOfLog   bool
	formatter          commandline.MessageFormatter
	log                *logrus.Entry
	stdout, stderr     io.Writer
}

// run fetches from offset until maxMessages were printed; it returns the count and the offset
// reached.
func (s *shell) run(ctx context.Context, offset int64) (int32, int64, error) {
	var numMessagesConsumed int32
	for numMessagesConsumed < s.maxMessages {
		if ctx.Err() != nil {
			return numMessagesConsumed, offset, ctx.Err()
		}
		req := s.builder.AddFetch(s.topic, s.partition, offset, s.fetchSize).Build()
		resp, err := s.sc.Fetch(ctx, req)
		if err != nil {
			return numMessagesConsumed, offset, err
		}
		messageSet, _, _ := oldconsumer.MessageSet(resp, s.topic, s.partition)
		if messageSet.ValidBytes() <= 0 && s.noWaitAtEndOfLog {
			fmt.Fprintf(s.stdout, "Terminating. Reached the end of partition (%s, %d) at offset %d\n", s.topic, s.partition, offset)
			return numMessagesConsumed, offset, nil
		}
		for e, err := range messageSet.DeepEntries() {
			if numMessagesConsumed >= s.maxMessages {
				break
			}
			if err != nil {
				return numMessagesConsumed, offset, err
			}
			offset = e.NextOffset()
			if s.printOffsets {
				fmt.Fprintf(s.stdout, "next offset = %d\n", offset)
			}
			var key, value []byte
			if e.Record.HasKey() {
				key = e.Record.Key()
			}
			if !e.Record.HasNullValue() {
				value = e.Record.Value()
			}
			rec := commandline.ConsumerRecord{Topic: s.topic, Partition: s.partition, Offset: offset, Timestamp: e.Record.Timestamp(),
				TimestampType: e.Record.TimestampType(), Key: key, Value: value}
			if err := s.formatter.WriteTo(rec, s.stdout); err != nil {
				if commandline.IsOutputError(err) {
					fmt.Fprintln(s.stderr, errOutputClosed.Error())
					return numMessagesConsumed, offset, errOutputClosed
				}
				if !s.skipMessageOnError {
					return numMessagesConsumed, offset, err
				}
				s.log.WithError(err).Error("Error processing message, skipping this message: ")
				continue
			}
			numMessagesConsumed++
		}
	}
	return numMessagesConsumed, offset, nil
}
