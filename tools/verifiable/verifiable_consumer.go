package verifiable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/consumer"
	"github.com/zkafka/zkafka/tools/commandline"
)

func consumerArgParser() *commandline.ArgumentParser {
	p := commandline.NewArgumentParser("verifiable-consumer",
		"This tool consumes messages from a specific topic and emits consumer events (e.g. group rebalances, received messages, and offsets committed) as JSON objects to STDOUT.")
	p.AddArgument("--broker-list").Required().Metavar("HOST1:PORT1[,HOST2:PORT2[...]]").Dest("brokerList").
		Help("Comma-separated list of Kafka brokers in the form HOST1:PORT1,HOST2:PORT2,...")
	p.AddArgument("--topic").Required().Metavar("TOPIC").Help("Consumes messages from this topic.")
	p.AddArgument("--group-id").Required().Metavar("GROUP_ID").Dest("groupId").Help("The groupId shared among members of the consumer group")
	p.AddArgument("--max-messages").Default("-1").Type("Integer").Metavar("MAX-MESSAGES").Dest("maxMessages").
		Help("Consume this many messages. If -1 (the default), the consumer will consume until the process is killed externally")
	p.AddArgument("--session-timeout").Default("30000").Type("Integer").Metavar("TIMEOUT_MS").Dest("sessionTimeout").
		Help("Set the consumer's session timeout")
	p.AddArgument("--verbose").StoreTrue().Metavar("VERBOSE").Help("Enable to log individual consumed records")
	p.AddArgument("--enable-autocommit").StoreTrue().Metavar("ENABLE-AUTOCOMMIT").Dest("useAutoCommit").Help("Enable offset auto-commit on consumer")
	p.AddArgument("--reset-policy").Default("earliest").Dest("resetPolicy").Help("Set reset policy (must be either 'earliest', 'latest', or 'none'")
	p.AddArgument("--assignment-strategy").Default(consumer.RangeAssignorClass).Dest("assignmentStrategy").
		Help("Set assignment strategy (e.g. " + consumer.RoundRobinAssignorClass + ")")
	p.AddArgument("--consumer.config").Metavar("CONFIG_FILE").
		Help("Consumer config properties file (config options shared with command line parameters will be overridden).")
	return p
}

// VerifiableConsumer consumes a topic in a group and prints every group event as JSON.
//
// Kafka 0.10.2: org.apache.kafka.tools.VerifiableConsumer.
type VerifiableConsumer struct {
	consumer         *consumer.KafkaConsumer[string, string]
	out              io.Writer
	topic            string
	useAutoCommit    bool
	verbose          bool
	maxMessages      int64
	consumedMessages int64
	mu               sync.Mutex
}

// RunConsumer is kafka-verifiable-consumer; ctx ending (SIGINT/SIGTERM) stops it (wakeup, close,
// shutdown_complete) as the JVM's shutdown hook does.
//
// Kafka 0.10.2: VerifiableConsumer.main and createFromArgs.
func RunConsumer(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	parser := consumerArgParser()
	if len(args) == 0 {
		parser.PrintHelp(stdout)
		return 0
	}
	ns, code, ok := parser.RunParse(args, stdout, stderr)
	if !ok {
		return code
	}
	props := map[string]string{}
	if f := ns.String("consumer.config"); f != "" {
		loaded, err := config.LoadProps(f)
		if err != nil {
			parser.HandleError(stderr, &commandline.ArgumentParserError{Parser: parser, Message: err.Error()})
			return 1
		}
		for k, v := range loaded {
			props[k] = v
		}
	}
	props[consumer.GroupIDConfig] = ns.String("groupId")
	props[consumer.BootstrapServersConfig] = ns.String("brokerList")
	props[consumer.EnableAutoCommitConfig] = fmt.Sprint(ns.Bool("useAutoCommit"))
	props[consumer.AutoOffsetResetConfig] = ns.String("resetPolicy")
	props[consumer.SessionTimeoutMsConfig] = fmt.Sprint(ns.Int("sessionTimeout"))
	props[consumer.PartitionAssignmentStrategyConfig] = ns.String("assignmentStrategy")
	props[consumer.KeyDeserializerClassConfig] = "org.apache.kafka.common.serialization.StringDeserializer"
	props[consumer.ValueDeserializerClassConfig] = "org.apache.kafka.common.serialization.StringDeserializer"
	c, err := consumer.NewKafkaConsumerWith[string, string](props, nil, nil, consumer.ConsumerOptions[string, string]{
		Log: commandline.ToolsLogger(stderr, "org.apache.kafka.clients.consumer.KafkaConsumer")})
	if err != nil {
		class := "org.apache.kafka.common.KafkaException"
		var ce *config.ConfigException
		if errors.As(err, &ce) && err == error(ce) {
			class = "org.apache.kafka.common.config.ConfigException"
		}
		fmt.Fprintf(stderr, "Exception in thread \"main\" %s: %v\n", class, err)
		return 1
	}
	vc := &VerifiableConsumer{consumer: c, out: stdout, topic: ns.String("topic"), useAutoCommit: ns.Bool("useAutoCommit"),
		verbose: ns.Bool("verbose"), maxMessages: int64(ns.Int("maxMessages"))}
	stop := context.AfterFunc(ctx, c.Wakeup)
	defer stop()
	if err := vc.run(); err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}
	return 0
}

func (vc *VerifiableConsumer) isFinished() bool {
	return vc.maxMessages >= 0 && vc.consumedMessages >= vc.maxMessages
}

// run subscribes and polls until woken up (or --max-messages were consumed), committing after
// every poll unless auto commit is on, then closes and prints shutdown_complete.
//
// Kafka 0.10.2: VerifiableConsumer.run. (Kafka keeps polling after --max-messages until it is
// killed; zkafka stops there.)
func (vc *VerifiableConsumer) run() error {
	defer func() {
		_ = vc.consumer.Close(30 * time.Second)
		vc.println(event("shutdown_complete"))
	}()
	if err := vc.consumer.Subscribe([]string{vc.topic}, vc); err != nil {
		return err
	}
	for !vc.isFinished() {
		recs, err := vc.consumer.Poll(time.Duration(math.MaxInt64))
		if errors.Is(err, consumer.ErrWakeup) {
			return nil
		}
		if err != nil {
			return err
		}
		offsets := vc.onRecordsReceived(recs)
		if !vc.useAutoCommit {
			if err := vc.commitSync(offsets); errors.Is(err, consumer.ErrWakeup) {
				return nil
			}
		}
	}
	return nil
}

func (vc *VerifiableConsumer) commitSync(offsets map[common.TopicPartition]consumer.OffsetAndMetadata) error {
	err := vc.consumer.CommitSync(offsets)
	if errors.Is(err, consumer.ErrWakeup) {
		// wakeup is only used to stop: commit again, then stop
		_ = vc.commitSync(offsets)
		return err
	}
	vc.onComplete(offsets, err)
	return nil
}

// onRecordsReceived prints records_consumed (and record_data with --verbose) and returns the
// offsets to commit.
func (vc *VerifiableConsumer) onRecordsReceived(recs *consumer.ConsumerRecords[string, string]) map[common.TopicPartition]consumer.OffsetAndMetadata {
	offsets := map[common.TopicPartition]consumer.OffsetAndMetadata{}
	var summaries []jsonObject
	for _, tp := range recs.Partitions() {
		prs := recs.Records(tp)
		if vc.maxMessages >= 0 && vc.consumedMessages+int64(len(prs)) > vc.maxMessages {
			prs = prs[:vc.maxMessages-vc.consumedMessages]
		}
		if len(prs) == 0 {
			continue
		}
		minOffset, maxOffset := prs[0].Offset, prs[len(prs)-1].Offset
		offsets[tp] = consumer.OffsetAndMetadata{Offset: maxOffset + 1}
		summaries = append(summaries, jsonObject{{"topic", tp.Topic}, {"partition", tp.Partition}, {"count", len(prs)},
			{"minOffset", minOffset}, {"maxOffset", maxOffset}})
		if vc.verbose {
			for _, r := range prs {
				vc.println(jsonObject{{"timestamp", time.Now().UnixMilli()}, {"name", "record_data"}, {"topic", r.Topic},
					{"partition", r.Partition}, {"key", r.Key}, {"value", r.Value}, {"offset", r.Offset}})
			}
		}
		vc.consumedMessages += int64(len(prs))
		if vc.isFinished() {
			break
		}
	}
	vc.println(jsonObject{{"timestamp", time.Now().UnixMilli()}, {"count", recs.Count()}, {"name", "records_consumed"},
		{"partitions", rawList(summaries)}})
	return offsets
}

// onComplete prints offsets_committed.
func (vc *VerifiableConsumer) onComplete(offsets map[common.TopicPartition]consumer.OffsetAndMetadata, err error) {
	var committed []jsonObject
	for _, tp := range common.SortedTopicPartitions(offsets) {
		committed = append(committed, jsonObject{{"topic", tp.Topic}, {"partition", tp.Partition}, {"offset", offsets[tp].Offset}})
	}
	o := jsonObject{{"timestamp", time.Now().UnixMilli()}, {"offsets", rawList(committed)}}
	if err != nil {
		o = append(o, jsonObject{{"error", err.Error()}}...)
	}
	o = append(o, jsonObject{{"success", err == nil}, {"name", "offsets_committed"}}...)
	vc.println(o)
}

// OnPartitionsAssigned prints partitions_assigned.
func (vc *VerifiableConsumer) OnPartitionsAssigned(partitions []common.TopicPartition) {
	vc.println(jsonObject{{"timestamp", time.Now().UnixMilli()}, {"partitions", tpList(partitions)}, {"name", "partitions_assigned"}})
}

// OnPartitionsRevoked prints partitions_revoked.
func (vc *VerifiableConsumer) OnPartitionsRevoked(partitions []common.TopicPartition) {
	vc.println(jsonObject{{"timestamp", time.Now().UnixMilli()}, {"partitions", tpList(partitions)}, {"name", "partitions_revoked"}})
}

func event(name string) jsonObject {
	return jsonObject{{"timestamp", time.Now().UnixMilli()}, {"name", name}}
}

func (vc *VerifiableConsumer) println(o jsonObject) {
	vc.mu.Lock()
	defer vc.mu.Unlock()
	fmt.Fprintln(vc.out, o.String())
}

func tpList(tps []common.TopicPartition) rawList {
	out := make(rawList, 0, len(tps))
	for _, tp := range tps {
		out = append(out, jsonObject{{"topic", tp.Topic}, {"partition", tp.Partition}})
	}
	return out
}

// rawList is a JSON array of ordered objects.
type rawList []jsonObject

// MarshalJSON implements json.Marshaler.
func (l rawList) MarshalJSON() ([]byte, error) {
	var b []byte
	b = append(b, '[')
	for i, o := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, o.String()...)
	}
	return append(b, ']'), nil
}
