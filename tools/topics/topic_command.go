package topics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/tools/commandline"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// zkTimeout is the session and connection timeout of the admin tools.
const zkTimeout = 30 * time.Second

// TopicCommand runs one kafka-topics action against ZooKeeper.
//
// Kafka 0.10.2: kafka.admin.TopicCommand.
type TopicCommand struct {
	Opts  *TopicCommandOptions
	Admin *admin.AdminUtils
	Out   io.Writer
	Log   *logrus.Entry
}

// Run is kafka-topics.sh: it parses args, runs the action and returns the
// exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return RunWithRand(ctx, args, stdout, stderr, nil)
}

// RunWithRand is Run with the random generator used for replica assignment
// (nil: seeded from the OS), so tests can pin it.
func RunWithRand(ctx context.Context, args []string, stdout, stderr io.Writer, rnd *rand.Rand) int {
	_ = ctx // every ZooKeeper call is bounded by the client's own timeouts
	opts, err := NewTopicCommandOptions(args)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	if len(args) == 0 {
		return commandline.Fail(stderr, commandline.PrintUsageAndDie(opts.Parser, "Create, delete, describe, or change a topic."))
	}
	n := 0
	for _, a := range opts.actions() {
		if opts.has(a) {
			n++
		}
	}
	if n != 1 {
		return commandline.Fail(stderr, commandline.PrintUsageAndDie(opts.Parser, "Command must include exactly one action: --list, --describe, --create, --alter or --delete"))
	}
	if err := opts.CheckArgs(); err != nil {
		return commandline.Fail(stderr, err)
	}
	log := commandline.ToolsLogger(stderr, "kafka.admin.TopicCommand$")
	zkUtils, err := commandline.ConnectZk(opts.Options.ValueOf(opts.ZkConnect), zkTimeout, zkTimeout, log, common.SystemTime{})
	if err != nil {
		return reportError(stdout, log, err)
	}
	defer zkUtils.Close()
	c := &TopicCommand{Opts: opts, Admin: admin.NewAdminUtils(zkUtils, rnd, log), Out: stdout, Log: log}
	switch {
	case opts.has(opts.Create):
		err = c.CreateTopic()
	case opts.has(opts.Alter):
		err = c.AlterTopic()
	case opts.has(opts.List):
		err = c.ListTopics()
	case opts.has(opts.Describe):
		err = c.DescribeTopic()
	case opts.has(opts.Delete):
		err = c.DeleteTopic()
	}
	// A usage error inside an action (--create without sizes) exits at once;
	// anything else, including a value jopt-simple cannot convert (it converts
	// lazily, inside Kafka's try block), is reported as a failed command.
	var ue *commandline.UsageError
	if errors.As(err, &ue) {
		return commandline.Fail(stderr, err)
	}
	if err != nil {
		return reportError(stdout, log, err)
	}
	return commandline.ExitOK
}

// reportError prints Kafka's failure line on stdout and the exception on stderr.
func reportError(stdout io.Writer, log *logrus.Entry, err error) int {
	fmt.Fprintln(stdout, "Error while executing topic command : "+err.Error())
	log.Error(javaException(err) + ": " + err.Error() + "\n")
	return commandline.ExitError
}

// javaException names the Java exception class Kafka would have thrown.
func javaException(err error) string {
	kinds := []struct {
		kind error
		name string
	}{
		{admin.ErrTopicExists, "org.apache.kafka.common.errors.TopicExistsException"},
		{admin.ErrInvalidTopic, "org.apache.kafka.common.errors.InvalidTopicException"},
		{admin.ErrInvalidPartitions, "org.apache.kafka.common.errors.InvalidPartitionsException"},
		{admin.ErrInvalidReplicationFactor, "org.apache.kafka.common.errors.InvalidReplicationFactorException"},
		{admin.ErrInvalidReplicaAssignment, "org.apache.kafka.common.errors.InvalidReplicaAssignmentException"},
		{admin.ErrInvalidConfig, "org.apache.kafka.common.errors.InvalidConfigurationException"},
		{admin.ErrAdminCommandFailed, "kafka.admin.AdminCommandFailedException"},
		{admin.ErrAdminOperation, "kafka.admin.AdminOperationException"},
		{errIllegalArgument, "java.lang.IllegalArgumentException"},
	}
	var pe *commandline.ParseError
	if errors.As(err, &pe) {
		return pe.Exception
	}
	for _, k := range kinds {
		if errors.Is(err, k.kind) {
			return k.name
		}
	}
	return "java.lang.RuntimeException"
}

var errIllegalArgument = errors.New("IllegalArgumentException")

// runtimeException is a java.lang.RuntimeException (TopicFilter's bad regex).
type runtimeException struct{ msg string }

func (e runtimeException) Error() string { return e.msg }

type illegalArgument struct{ msg string }

func (e illegalArgument) Error() string { return e.msg }
func (e illegalArgument) Unwrap() error { return errIllegalArgument }

// getTopics lists the topics, sorted, filtered by --topic as a whitelist.
func (c *TopicCommand) getTopics() ([]string, error) {
	all, err := c.Admin.ZkUtils.GetAllTopics()
	if err != nil {
		return nil, err
	}
	sort.Strings(all)
	if !c.Opts.has(c.Opts.Topic) {
		return all, nil
	}
	re, err := whitelist(c.Opts.Options.ValueOf(c.Opts.Topic))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range all {
		if re.MatchString(t) {
			out = append(out, t)
		}
	}
	return out, nil
}

var (
	leadingQuotes  = regexp.MustCompile(`^["']+`)
	trailingQuotes = regexp.MustCompile(`["']+$`)
)

// whitelist compiles a --topic spec the way kafka.consumer.Whitelist does;
// the whole topic name must match.
func whitelist(spec string) (*regexp.Regexp, error) {
	r := strings.ReplaceAll(strings.ReplaceAll(strings.TrimSpace(spec), ",", "|"), " ", "")
	r = trailingQuotes.ReplaceAllString(leadingQuotes.ReplaceAllString(r, ""), "")
	re, err := regexp.Compile("^(?:" + r + ")$")
	if err != nil {
		return nil, runtimeException{r + " is an invalid regex."}
	}
	return re, nil
}

// CreateTopic is --create.
func (c *TopicCommand) CreateTopic() error {
	o := c.Opts
	topic := o.Options.ValueOf(o.Topic)
	configs, err := c.parseTopicConfigsToBeAdded()
	if err != nil {
		return err
	}
	if admin.TopicHasCollisionChars(topic) {
		fmt.Fprintln(c.Out, "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.")
	}
	if o.has(o.ReplicaAssignment) {
		var assignment map[int32][]int32
		assignment, err = admin.ParseReplicaAssignment(o.Options.ValueOf(o.ReplicaAssignment))
		if err == nil {
			err = c.Admin.CreateOrUpdateTopicPartitionAssignmentPathInZK(topic, assignment, configs, false)
		}
	} else {
		if err := commandline.CheckRequiredArgs(o.Parser, o.Options, o.Partitions, o.ReplicationFactor); err != nil {
			return err
		}
		partitions, err1 := o.Options.IntValueOf(o.Partitions)
		if err1 != nil {
			return err1
		}
		rf, err1 := o.Options.IntValueOf(o.ReplicationFactor)
		if err1 != nil {
			return err1
		}
		mode := admin.RackAwareEnforced
		if o.has(o.DisableRackAware) {
			mode = admin.RackAwareDisabled
		}
		err = c.Admin.CreateTopic(topic, partitions, rf, configs, mode)
	}
	if errors.Is(err, admin.ErrTopicExists) && o.has(o.IfNotExists) {
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Out, "Created topic \"%s\".\n", topic)
	return nil
}

var configSplit = regexp.MustCompile(`\s*=\s*`)

// parseTopicConfigsToBeAdded reads every --config name=value and validates
// them as topic configs.
func (c *TopicCommand) parseTopicConfigsToBeAdded() (map[string]string, error) {
	props := map[string]string{}
	var pairs [][]string
	for _, v := range c.Opts.Options.ValuesOf(c.Opts.Config) {
		kv := configSplit.Split(v, -1)
		for len(kv) > 0 && kv[len(kv)-1] == "" { // Java's split drops trailing empties
			kv = kv[:len(kv)-1]
		}
		pairs = append(pairs, kv)
	}
	for _, kv := range pairs {
		if len(kv) != 2 {
			return nil, illegalArgument{`requirement failed: Invalid topic config: all configs to be added must be in the format "key=val".`}
		}
	}
	for _, kv := range pairs {
		props[strings.TrimSpace(kv[0])] = strings.TrimSpace(kv[1])
	}
	if err := admin.ValidateTopicConfig(props); err != nil {
		return nil, err
	}
	if v, ok := props[admin.MessageFormatVersionProp]; ok {
		fmt.Fprintf(c.Out, "WARNING: The configuration %s=%s is specified. This configuration will be ignored if the version is newer than the inter.broker.protocol.version specified in the broker.\n",
			admin.MessageFormatVersionProp, v)
	}
	return props, nil
}

func (c *TopicCommand) parseTopicConfigsToBeDeleted() ([]string, error) {
	var out []string
	props := map[string]string{}
	for _, v := range c.Opts.Options.ValuesOf(c.Opts.DeleteConfig) {
		out = append(out, strings.TrimSpace(v))
		props[strings.TrimSpace(v)] = ""
	}
	return out, admin.ValidateTopicConfigNames(props)
}

func (c *TopicCommand) noSuchTopic() error {
	return illegalArgument{fmt.Sprintf("Topic %s does not exist on ZK path %s",
		c.Opts.Options.ValueOf(c.Opts.Topic), c.Opts.Options.ValueOf(c.Opts.ZkConnect))}
}

// AlterTopic is --alter: config changes (deprecated here) and/or more partitions.
func (c *TopicCommand) AlterTopic() error {
	o := c.Opts
	topics, err := c.getTopics()
	if err != nil {
		return err
	}
	if len(topics) == 0 && !o.has(o.IfExists) {
		return c.noSuchTopic()
	}
	for _, topic := range topics {
		configs, err := c.Admin.FetchEntityConfig(zkutils.ConfigTypeTopic, topic)
		if err != nil {
			return err
		}
		if o.has(o.Config) || o.has(o.DeleteConfig) {
			fmt.Fprintln(c.Out, "WARNING: Altering topic configuration from this script has been deprecated and may be removed in future releases.")
			fmt.Fprintln(c.Out, "         Going forward, please use kafka-configs.sh for this functionality")
			add, err := c.parseTopicConfigsToBeAdded()
			if err != nil {
				return err
			}
			del, err := c.parseTopicConfigsToBeDeleted()
			if err != nil {
				return err
			}
			for k, v := range add {
				configs[k] = v
			}
			for _, k := range del {
				delete(configs, k)
			}
			if err := c.Admin.ChangeTopicConfig(topic, configs); err != nil {
				return err
			}
			fmt.Fprintf(c.Out, "Updated config for topic \"%s\".\n", topic)
		}
		if o.has(o.Partitions) {
			if topic == admin.GroupMetadataTopicName {
				return illegalArgument{"The number of partitions for the offsets topic cannot be changed."}
			}
			fmt.Fprintln(c.Out, "WARNING: If partitions are increased for a topic that has a key, the partition logic or ordering of the messages will be affected")
			n, err := o.Options.IntValueOf(o.Partitions)
			if err != nil {
				return err
			}
			if err := c.Admin.AddPartitions(topic, n, o.Options.ValueOf(o.ReplicaAssignment), true, admin.RackAwareEnforced); err != nil {
				return err
			}
			fmt.Fprintln(c.Out, "Adding partitions succeeded!")
		}
	}
	return nil
}

// ListTopics is --list.
func (c *TopicCommand) ListTopics() error {
	topics, err := c.getTopics()
	if err != nil {
		return err
	}
	for _, t := range topics {
		marked, err := c.Admin.ZkUtils.PathExists(zkutils.DeleteTopicPath(t))
		if err != nil {
			return err
		}
		if marked {
			fmt.Fprintf(c.Out, "%s - marked for deletion\n", t)
		} else {
			fmt.Fprintln(c.Out, t)
		}
	}
	return nil
}

// DeleteTopic is --delete: it only marks topics; the controller deletes them
// when delete.topic.enable is set.
func (c *TopicCommand) DeleteTopic() error {
	topics, err := c.getTopics()
	if err != nil {
		return err
	}
	if len(topics) == 0 && !c.Opts.has(c.Opts.IfExists) {
		return c.noSuchTopic()
	}
	for _, t := range topics {
		if admin.IsInternalTopic(t) {
			return admin.NewAdminOperationException("Topic " + t + " is a kafka internal topic and is not allowed to be marked for deletion.")
		}
		err := c.Admin.ZkUtils.CreatePersistentPath(zkutils.DeleteTopicPath(t), nil)
		switch {
		case errors.Is(err, zkclient.ErrNodeExists):
			fmt.Fprintf(c.Out, "Topic %s is already marked for deletion.\n", t)
		case err != nil:
			return admin.NewAdminOperationException("Error while deleting topic " + t)
		default:
			fmt.Fprintf(c.Out, "Topic %s is marked for deletion.\n", t)
			fmt.Fprintln(c.Out, "Note: This will have no impact if delete.topic.enable is not set to true.")
		}
	}
	return nil
}

// DescribeTopic is --describe with its three filters.
func (c *TopicCommand) DescribeTopic() error {
	o := c.Opts
	topics, err := c.getTopics()
	if err != nil {
		return err
	}
	underReplicated, unavailable, overrides := o.has(o.UnderReplicated), o.has(o.Unavailable), o.has(o.WithOverrides)
	brokers, err := c.Admin.ZkUtils.GetAllBrokersInCluster()
	if err != nil {
		return err
	}
	live := map[int32]bool{}
	for _, b := range brokers {
		live[b.ID] = true
	}
	for _, topic := range topics {
		data, _, ok, err := c.Admin.ZkUtils.ReadDataMaybeNull(zkutils.TopicPath(topic))
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(c.Out, "Topic "+topic+" doesn't exist!")
			continue
		}
		assignment, err := zkutils.ParseReplicaAssignment(data)
		if err != nil {
			return err
		}
		partitions := make([]int32, 0, len(assignment))
		for p := range assignment {
			partitions = append(partitions, p)
		}
		sort.Slice(partitions, func(i, j int) bool { return partitions[i] < partitions[j] })
		if !unavailable && !underReplicated {
			configs, err := c.Admin.FetchEntityConfig(zkutils.ConfigTypeTopic, topic)
			if err != nil {
				return err
			}
			if !overrides || len(configs) > 0 {
				rf := 0
				if len(partitions) > 0 {
					rf = len(assignment[partitions[0]])
				}
				fmt.Fprintf(c.Out, "Topic:%s\tPartitionCount:%d\tReplicationFactor:%d\tConfigs:%s\n",
					topic, len(assignment), rf, admin.FormatProperties(configs))
			}
		}
		if overrides {
			continue
		}
		for _, p := range partitions {
			replicas := assignment[p]
			state, hasLeader, err := c.Admin.ZkUtils.GetLeaderAndIsrForPartition(topic, p)
			if err != nil {
				return err
			}
			isr := state.Isr
			show := (!underReplicated && !unavailable) ||
				(underReplicated && len(isr) < len(replicas)) ||
				(unavailable && (!hasLeader || !live[state.Leader]))
			if !show {
				continue
			}
			leader := "none"
			if hasLeader {
				leader = strconv.Itoa(int(state.Leader))
			}
			fmt.Fprintf(c.Out, "\tTopic: %s\tPartition: %d\tLeader: %s\tReplicas: %s\tIsr: %s\n",
				topic, p, leader, joinInts(replicas), joinInts(isr))
		}
	}
	return nil
}

func joinInts(s []int32) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.Itoa(int(v))
	}
	return strings.Join(parts, ",")
}
