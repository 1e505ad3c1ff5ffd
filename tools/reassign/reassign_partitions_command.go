package reassign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/tools/commandline"
	"github.com/zkafka/zkafka/zk/zkutils"
)

const zkTimeout = 30 * time.Second

// ReassignPartitionsCommandOptions are the tool's options.
//
// Kafka 0.10.2: ReassignPartitionsCommand.ReassignPartitionsCommandOptions.
type ReassignPartitionsCommandOptions struct {
	Parser  *commandline.OptionParser
	Options *commandline.OptionSet

	ZkConnect, Generate, Execute, Verify, ReassignmentJSONFile   *commandline.OptionSpec
	TopicsToMoveJSONFile, BrokerList, DisableRackAware, Throttle *commandline.OptionSpec
}

// NewReassignPartitionsCommandOptions declares the options and parses args.
func NewReassignPartitionsCommandOptions(args []string) (*ReassignPartitionsCommandOptions, error) {
	p := commandline.NewOptionParser()
	o := &ReassignPartitionsCommandOptions{Parser: p}
	o.ZkConnect = p.Accepts("zookeeper", "REQUIRED: The connection string for the zookeeper connection in the form host:port. Multiple URLS can be given to allow fail-over.").
		WithRequiredArg().DescribedAs("urls")
	o.Generate = p.Accepts("generate", "Generate a candidate partition reassignment configuration. Note that this only generates a candidate assignment, it does not execute it.")
	o.Execute = p.Accepts("execute", "Kick off the reassignment as specified by the --reassignment-json-file option.")
	o.Verify = p.Accepts("verify", "Verify if the reassignment completed as specified by the --reassignment-json-file option. If there is a throttle engaged for the replicas specified, and the rebalance has completed, the throttle will be removed")
	o.ReassignmentJSONFile = p.Accepts("reassignment-json-file", "The JSON file with the partition reassignment configurationThe format to use is - \n"+
		"{\"partitions\":\n\t[{\"topic\": \"foo\",\n\t  \"partition\": 1,\n\t  \"replicas\": [1,2,3] }],\n\"version\":1\n}").
		WithRequiredArg().DescribedAs("manual assignment json file path")
	o.TopicsToMoveJSONFile = p.Accepts("topics-to-move-json-file", "Generate a reassignment configuration to move the partitions of the specified topics to the list of brokers specified by the --broker-list option. The format to use is - \n"+
		"{\"topics\":\n\t[{\"topic\": \"foo\"},{\"topic\": \"foo1\"}],\n\"version\":1\n}").
		WithRequiredArg().DescribedAs("topics to reassign json file path")
	o.BrokerList = p.Accepts("broker-list", "The list of brokers to which the partitions need to be reassigned in the form \"0,1,2\". This is required if --topics-to-move-json-file is used to generate reassignment configuration").
		WithRequiredArg().DescribedAs("brokerlist")
	o.DisableRackAware = p.Accepts("disable-rack-aware", "Disable rack aware replica assignment")
	o.Throttle = p.Accepts("throttle", "The movement of partitions will be throttled to this value (bytes/sec). Rerunning with this option, whilst a rebalance is in progress, will alter the throttle value. The throttle rate should be at least 1 KB/s.").
		WithRequiredArg().DescribedAs("throttle").OfType("Long").DefaultsTo("-1")
	set, err := p.Parse(args...)
	if err != nil {
		return nil, err
	}
	o.Options = set
	return o, nil
}

// validateAndParseArgs is ReassignPartitionsCommand.validateAndParseArgs.
func validateAndParseArgs(args []string) (*ReassignPartitionsCommandOptions, error) {
	o, err := NewReassignPartitionsCommandOptions(args)
	if err != nil {
		return nil, err
	}
	p, set := o.Parser, o.Options
	if len(args) == 0 {
		return nil, commandline.PrintUsageAndDie(p, "This command moves topic partitions between replicas.")
	}
	n := 0
	for _, a := range []*commandline.OptionSpec{o.Generate, o.Execute, o.Verify} {
		if set.Has(a) {
			n++
		}
	}
	if n != 1 {
		return nil, commandline.PrintUsageAndDie(p, "Command must include exactly one action: --generate, --execute or --verify")
	}
	if err := commandline.CheckRequiredArgs(p, set, o.ZkConnect); err != nil {
		return nil, err
	}
	switch {
	case set.Has(o.Verify):
		if !set.Has(o.ReassignmentJSONFile) {
			return nil, commandline.PrintUsageAndDie(p, "If --verify option is used, command must include --reassignment-json-file that was used during the --execute option")
		}
		err = commandline.CheckInvalidArgs(p, set, o.Verify, o.Throttle, o.TopicsToMoveJSONFile, o.DisableRackAware, o.BrokerList)
	case set.Has(o.Generate):
		if !set.Has(o.TopicsToMoveJSONFile) || !set.Has(o.BrokerList) {
			return nil, commandline.PrintUsageAndDie(p, "If --generate option is used, command must include both --topics-to-move-json-file and --broker-list options")
		}
		err = commandline.CheckInvalidArgs(p, set, o.Generate, o.Throttle, o.ReassignmentJSONFile)
	case set.Has(o.Execute):
		if !set.Has(o.ReassignmentJSONFile) {
			return nil, commandline.PrintUsageAndDie(p, "If --execute option is used, command must include --reassignment-json-file that was output during the --generate option")
		}
		err = commandline.CheckInvalidArgs(p, set, o.Execute, o.TopicsToMoveJSONFile, o.DisableRackAware, o.BrokerList)
	}
	if err != nil {
		return nil, err
	}
	return o, nil
}

// ReassignPartitionsCommand carries one run's state.
//
// Kafka 0.10.2: kafka.admin.ReassignPartitionsCommand (object and class).
type ReassignPartitionsCommand struct {
	Admin *admin.AdminUtils
	Out   io.Writer
	Log   *logrus.Entry
}

// Run is kafka-reassign-partitions.sh; it returns the exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return RunWithRand(ctx, args, stdout, stderr, nil)
}

// RunWithRand is Run with the generator --generate draws from (nil: from the OS).
func RunWithRand(_ context.Context, args []string, stdout, stderr io.Writer, rnd *rand.Rand) int {
	opts, err := validateAndParseArgs(args)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	log := commandline.ToolsLogger(stderr, "kafka.admin.ReassignPartitionsCommand$")
	zkUtils, err := commandline.ConnectZk(opts.Options.ValueOf(opts.ZkConnect), zkTimeout, zkTimeout, log, common.SystemTime{})
	if err == nil {
		defer zkUtils.Close()
		c := &ReassignPartitionsCommand{Admin: admin.NewAdminUtils(zkUtils, rnd, log), Out: stdout, Log: log}
		set := opts.Options
		switch {
		case set.Has(opts.Verify):
			err = c.verifyFile(set.ValueOf(opts.ReassignmentJSONFile))
		case set.Has(opts.Generate):
			err = c.generateFromFile(set.ValueOf(opts.BrokerList), set.ValueOf(opts.TopicsToMoveJSONFile), set.Has(opts.DisableRackAware))
		case set.Has(opts.Execute):
			// jopt-simple converts --throttle lazily, inside Kafka's try block.
			var throttle int64
			var data []byte
			if data, err = readFile(set.ValueOf(opts.ReassignmentJSONFile)); err == nil {
				if throttle, err = set.LongValueOf(opts.Throttle); err == nil {
					err = c.ExecuteAssignment(data, throttle)
				}
			}
		}
	}
	if err != nil {
		fmt.Fprintln(stdout, "Partitions reassignment failed due to "+err.Error())
		fmt.Fprintln(stdout, exceptionName(err)+": "+err.Error())
	}
	return commandline.ExitOK
}

func exceptionName(err error) string {
	var pe *commandline.ParseError
	switch {
	case errors.As(err, &pe):
		return pe.Exception
	case errors.Is(err, admin.ErrAdminCommandFailed):
		return "kafka.admin.AdminCommandFailedException"
	case errors.Is(err, admin.ErrAdminOperation):
		return "kafka.admin.AdminOperationException"
	case errors.Is(err, os.ErrNotExist):
		return "java.nio.file.NoSuchFileException"
	}
	return "java.lang.RuntimeException"
}

func readFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// tpString renders a partition as TopicAndPartition.toString: [foo,0].
func tpString(tp common.TopicPartition) string { return admin.TopicPartitionString(tp) }

func joinInts(s []int32, sep string) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.Itoa(int(v))
	}
	return strings.Join(parts, sep)
}

// sortedAssignment lists a map sorted by topic, then partition.
func sortedAssignment(m map[common.TopicPartition][]int32) []zkutils.PartitionReplicas {
	out := make([]zkutils.PartitionReplicas, 0, len(m))
	for tp, r := range m {
		out = append(out, zkutils.PartitionReplicas{TopicPartition: tp, Replicas: r})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].TopicPartition, out[j].TopicPartition
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		return a.Partition < b.Partition
	})
	return out
}

// duplicates returns the values occurring more than once, in first-repeat order.
func duplicates[T comparable](s []T) []T {
	count := map[T]int{}
	var out []T
	for _, v := range s {
		count[v]++
		if count[v] == 2 {
			out = append(out, v)
		}
	}
	return out
}
