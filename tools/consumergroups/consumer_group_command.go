package consumergroups

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/tools/commandline"
)

// missing is MISSING_COLUMN_VALUE.
const missing = "-"

// row is one line of --describe (Kafka's PartitionAssignmentState, already rendered).
type row struct {
	topic, partition, offset, logEndOffset, lag, consumerID, host, clientID string
}

// consumerGroupService is one of the two views.
//
// Kafka 0.10.2: ConsumerGroupCommand.ConsumerGroupService.
type consumerGroupService interface {
	listGroups() ([]string, error)
	// describeGroup returns the group's state ("" for ZooKeeper groups) and rows; exists is
	// false when the group is unknown.
	describeGroup(group string) (state string, rows []row, exists bool, err error)
	close()
}

// Deps are the outside world of the command; tests replace the broker side.
type Deps struct {
	// ZkBrokerOps reaches brokers for the ZooKeeper view (nil: real connections).
	ZkBrokerOps ZkBrokerOps
	// Timeout bounds each broker request (default 30 s).
	Timeout time.Duration
}

// Run is kafka-consumer-groups.sh; it returns the exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return RunWith(ctx, args, stdout, stderr, Deps{})
}

// RunWith is Run with explicit dependencies.
//
// Kafka 0.10.2: ConsumerGroupCommand.main.
func RunWith(_ context.Context, args []string, stdout, stderr io.Writer, deps Deps) int {
	if deps.Timeout <= 0 {
		deps.Timeout = 30 * time.Second
	}
	p := commandline.NewOptionParser()
	zkConnectOpt := p.Accepts("zookeeper", "REQUIRED (only when using old consumer): The connection string for the zookeeper connection in the form host:port. Multiple URLS can be given to allow fail-over.").
		WithRequiredArg().DescribedAs("urls")
	bootstrapOpt := p.Accepts("bootstrap-server", "REQUIRED (unless old consumer is used): The server to connect to.").
		WithRequiredArg().DescribedAs("server to connect to")
	groupOpt := p.Accepts("group", "The consumer group we wish to act on.").WithRequiredArg().DescribedAs("consumer group")
	topicOpt := p.Accepts("topic", "The topic whose consumer group information should be deleted.").WithRequiredArg().DescribedAs("topic")
	listOpt := p.Accepts("list", "List all consumer groups.")
	describeOpt := p.Accepts("describe", "Describe consumer group and list offset lag (number of messages not yet processed) related to given group.")
	deleteOpt := p.Accepts("delete", "Pass in groups to delete topic partition offsets and ownership information over the entire consumer group. "+
		"For instance --group g1 --group g2\nPass in groups with a single topic to just delete the given topic's partition offsets and "+
		"ownership information for the given consumer groups. For instance --group g1 --group g2 --topic t1\nPass in just a topic to "+
		"delete the given topic's partition offsets and ownership information for every consumer group. For instance --topic t1\n"+
		"WARNING: Group deletion only works for old ZK-based consumer groups, and one has to use it carefully to only delete groups that are not active.")
	newConsumerOpt := p.Accepts("new-consumer", "Use new consumer. This is the default.")
	commandConfigOpt := p.Accepts("command-config", "Property file containing configs to be passed to Admin Client and Consumer.").
		WithRequiredArg().DescribedAs("command config property file")
	_ = commandConfigOpt

	if len(args) == 0 {
		return commandline.Fail(stderr, commandline.PrintUsageAndDie(p, "List all consumer groups, describe a consumer group, or delete consumer group info."))
	}
	opts, err := p.Parse(args...)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	actions := 0
	for _, o := range []*commandline.OptionSpec{listOpt, describeOpt, deleteOpt} {
		if opts.Has(o) {
			actions++
		}
	}
	if actions != 1 {
		return commandline.Fail(stderr, commandline.PrintUsageAndDie(p, "Command must include exactly one action: --list, --describe, --delete"))
	}
	useOldConsumer := opts.Has(zkConnectOpt)
	// checkArgs
	if useOldConsumer {
		if opts.Has(bootstrapOpt) {
			return commandline.Fail(stderr, commandline.PrintUsageAndDie(p, fmt.Sprintf("Option '%s' is not valid with '%s'.", bootstrapOpt, zkConnectOpt)))
		}
		if opts.Has(newConsumerOpt) {
			return commandline.Fail(stderr, commandline.PrintUsageAndDie(p, fmt.Sprintf("Option '%s' is not valid with '%s'.", newConsumerOpt, zkConnectOpt)))
		}
	} else {
		if err := commandline.CheckRequiredArgs(p, opts, bootstrapOpt); err != nil {
			return commandline.Fail(stderr, err)
		}
		if opts.Has(deleteOpt) {
			return commandline.Fail(stderr, commandline.PrintUsageAndDie(p, fmt.Sprintf("Option '%s' is only valid with '%s'. Note that "+
				"there's no need to delete group metadata for the new consumer as the group is deleted when the last "+
				"committed offset for that group expires.", deleteOpt, zkConnectOpt)))
		}
	}
	if opts.Has(describeOpt) {
		if err := commandline.CheckRequiredArgs(p, opts, groupOpt); err != nil {
			return commandline.Fail(stderr, err)
		}
	}
	if opts.Has(deleteOpt) && !opts.Has(groupOpt) && !opts.Has(topicOpt) {
		return commandline.Fail(stderr, commandline.PrintUsageAndDie(p, fmt.Sprintf("Option %s either takes %s, %s, or both", deleteOpt, groupOpt, topicOpt)))
	}
	if err := commandline.CheckInvalidArgs(p, opts, groupOpt, listOpt); err != nil {
		return commandline.Fail(stderr, err)
	}
	if err := commandline.CheckInvalidArgs(p, opts, topicOpt, listOpt, describeOpt); err != nil {
		return commandline.Fail(stderr, err)
	}

	var svc consumerGroupService
	if useOldConsumer {
		fmt.Fprint(stderr, "Note: This will only show information about consumers that use ZooKeeper (not those using the Java consumer API).\n\n")
		log := commandline.ToolsLogger(stderr, "kafka.admin.ConsumerGroupCommand$")
		z, err := commandline.ConnectZk(opts.ValueOf(zkConnectOpt), 30*time.Second, 30*time.Second, log, common.SystemTime{})
		if err != nil {
			printError(stdout, fmt.Sprintf("Executing consumer group command failed due to %v", err))
			return 0
		}
		ops := deps.ZkBrokerOps
		if ops == nil {
			ops = &realZkBrokerOps{zk: z, timeout: deps.Timeout}
		}
		svc = &zkConsumerGroupService{zk: z, ops: ops, stdout: stdout}
	} else {
		fmt.Fprint(stderr, "Note: This will only show information about consumers that use the Java consumer API (non-ZooKeeper-based consumers).\n\n")
		svc = newKafkaConsumerGroupService(opts.ValueOf(bootstrapOpt), deps.Timeout)
	}
	defer svc.close()

	if err := execute(svc, opts.Has(listOpt), opts.Has(describeOpt), useOldConsumer, opts.ValuesOf(groupOpt), opts.Has(topicOpt),
		opts.ValueOf(topicOpt), stdout, stderr); err != nil {
		printError(stdout, fmt.Sprintf("Executing consumer group command failed due to %v", err))
	}
	return 0
}

func execute(svc consumerGroupService, list, describe, old bool, groups []string, hasTopic bool, topic string, stdout, stderr io.Writer) error {
	switch {
	case list:
		gs, err := svc.listGroups()
		if err != nil {
			return err
		}
		for _, g := range gs {
			fmt.Fprintln(stdout, g)
		}
	case describe:
		group := groups[0]
		state, rows, exists, err := svc.describeGroup(group)
		if err != nil {
			return err
		}
		if !exists {
			printError(stdout, fmt.Sprintf("The consumer group '%s' does not exist.", group))
			return nil
		}
		if old {
			printAssignment(stdout, rows, false)
			return nil
		}
		switch state {
		case "Dead":
			printError(stdout, fmt.Sprintf("Consumer group '%s' does not exist.", group))
		case "Empty":
			fmt.Fprintf(stderr, "Consumer group '%s' has no active members.\n", group)
			printAssignment(stdout, rows, true)
		case "PreparingRebalance", "AwaitingSync":
			fmt.Fprintf(stderr, "Warning: Consumer group '%s' is rebalancing.\n", group)
			printAssignment(stdout, rows, true)
		case "Stable":
			printAssignment(stdout, rows, true)
		default:
			return fmt.Errorf("Expected a valid consumer group state, but found '%s'.", state)
		}
	default: // delete (ZooKeeper only; checkArgs refused it otherwise)
		zs := svc.(*zkConsumerGroupService)
		return zs.deleteGroups(groups, hasTopic, topic)
	}
	return nil
}

func printError(w io.Writer, msg string) { fmt.Fprintf(w, "Error: %s\n", msg) }

// printAssignment prints the header (after an empty line) and the rows.
func printAssignment(w io.Writer, rows []row, newConsumer bool) {
	fmt.Fprintf(w, "\n%-30s %-10s %-15s %-15s %-10s %-50s", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID")
	if newConsumer {
		fmt.Fprintf(w, "%-30s %s", "HOST", "CLIENT-ID")
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "%-30s %-10s %-15s %-15s %-10s %-50s", r.topic, r.partition, r.offset, r.logEndOffset, r.lag, r.consumerID)
		if newConsumer {
			fmt.Fprintf(w, "%-30s %s", r.host, r.clientID)
		}
		fmt.Fprintln(w)
	}
}

// logEndOffsetResult is Kafka's LogEndOffsetResult: a value, Unknown (no leader), or Ignore
// (the row is dropped).
type logEndOffsetResult struct {
	value  int64
	known  bool
	ignore bool
}

func optInt(v int64, ok bool) string {
	if !ok {
		return missing
	}
	return fmt.Sprint(v)
}

// describePartition renders one partition row: lag = LEO - offset when both are known and the
// offset is not -1.
func describePartition(topic string, partition int32, offset int64, hasOffset bool, leo logEndOffsetResult, consumerID, host, clientID string) (row, bool) {
	if leo.ignore {
		return row{}, false
	}
	lag, hasLag := int64(0), false
	if hasOffset && offset != -1 && leo.known {
		lag, hasLag = leo.value-offset, true
	}
	return row{topic: topic, partition: fmt.Sprint(partition), offset: optInt(offset, hasOffset), logEndOffset: optInt(leo.value, leo.known),
		lag: optInt(lag, hasLag), consumerID: consumerID, host: host, clientID: clientID}, true
}

// memberRow is the row of a member without partitions: all "-" but its identity.
func memberRow(consumerID, host, clientID string) row {
	return row{topic: missing, partition: missing, offset: missing, logEndOffset: missing, lag: missing,
		consumerID: consumerID, host: host, clientID: clientID}
}
