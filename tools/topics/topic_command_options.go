package topics

import (
	"strings"

	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/tools/commandline"
)

// TopicCommandOptions are kafka-topics' options, with Kafka's names and help.
//
// Kafka 0.10.2: kafka.admin.TopicCommand.TopicCommandOptions.
type TopicCommandOptions struct {
	Parser  *commandline.OptionParser
	Options *commandline.OptionSet

	ZkConnect, List, Create, Delete, Alter, Describe, Help, Topic  *commandline.OptionSpec
	Config, DeleteConfig, Partitions, ReplicationFactor            *commandline.OptionSpec
	ReplicaAssignment, UnderReplicated, Unavailable, WithOverrides *commandline.OptionSpec
	IfExists, IfNotExists, DisableRackAware, Force                 *commandline.OptionSpec
}

// NewTopicCommandOptions declares the options and parses args.
func NewTopicCommandOptions(args []string) (*TopicCommandOptions, error) {
	p := commandline.NewOptionParser()
	o := &TopicCommandOptions{Parser: p}
	o.ZkConnect = p.Accepts("zookeeper", "REQUIRED: The connection string for the zookeeper connection in the form host:port. Multiple URLS can be given to allow fail-over.").
		WithRequiredArg().DescribedAs("urls")
	o.List = p.Accepts("list", "List all available topics.")
	o.Create = p.Accepts("create", "Create a new topic.")
	o.Delete = p.Accepts("delete", "Delete a topic")
	o.Alter = p.Accepts("alter", "Alter the number of partitions, replica assignment, and/or configuration for the topic.")
	o.Describe = p.Accepts("describe", "List details for the given topics.")
	o.Help = p.Accepts("help", "Print usage information.")
	o.Topic = p.Accepts("topic", "The topic to be create, alter or describe. Can also accept a regular expression except for --create option").
		WithRequiredArg().DescribedAs("topic")
	names := log.ConfigNames()
	o.Config = p.Accepts("config", "A topic configuration override for the topic being created or altered.The following is a list of valid configurations: \n\t"+
		strings.Join(names, "\n\t")+"\nSee the Kafka documentation for full details on the topic configs.").
		WithRequiredArg().DescribedAs("name=value")
	o.DeleteConfig = p.Accepts("delete-config", "A topic configuration override to be removed for an existing topic (see the list of configurations under the --config option).").
		WithRequiredArg().DescribedAs("name")
	o.Partitions = p.Accepts("partitions", "The number of partitions for the topic being created or altered (WARNING: If partitions are increased for a topic that has a key, the partition logic or ordering of the messages will be affected").
		WithRequiredArg().DescribedAs("# of partitions").OfType("Integer")
	o.ReplicationFactor = p.Accepts("replication-factor", "The replication factor for each partition in the topic being created.").
		WithRequiredArg().DescribedAs("replication factor").OfType("Integer")
	o.ReplicaAssignment = p.Accepts("replica-assignment", "A list of manual partition-to-broker assignments for the topic being created or altered.").
		WithRequiredArg().DescribedAs("broker_id_for_part1_replica1 : broker_id_for_part1_replica2 , broker_id_for_part2_replica1 : broker_id_for_part2_replica2 , ...")
	o.UnderReplicated = p.Accepts("under-replicated-partitions", "if set when describing topics, only show under replicated partitions")
	o.Unavailable = p.Accepts("unavailable-partitions", "if set when describing topics, only show partitions whose leader is not available")
	o.WithOverrides = p.Accepts("topics-with-overrides", "if set when describing topics, only show topics that have overridden configs")
	o.IfExists = p.Accepts("if-exists", "if set when altering or deleting topics, the action will only execute if the topic exists")
	o.IfNotExists = p.Accepts("if-not-exists", "if set when creating topics, the action will only execute if the topic does not already exist")
	o.DisableRackAware = p.Accepts("disable-rack-aware", "Disable rack aware replica assignment")
	o.Force = p.Accepts("force", "Suppress console prompts")
	set, err := p.Parse(args...)
	if err != nil {
		return nil, err
	}
	o.Options = set
	return o, nil
}

func (o *TopicCommandOptions) has(s *commandline.OptionSpec) bool { return o.Options.Has(s) }

// actions are the five mutually exclusive actions.
func (o *TopicCommandOptions) actions() []*commandline.OptionSpec {
	return []*commandline.OptionSpec{o.Create, o.List, o.Alter, o.Describe, o.Delete}
}

// except lists the actions other than the given ones.
func (o *TopicCommandOptions) except(keep ...*commandline.OptionSpec) []*commandline.OptionSpec {
	var out []*commandline.OptionSpec
	// Kafka iterates a Scala Set of the five actions; any order gives the same
	// verdict, only the named option in the message could differ.
	for _, a := range []*commandline.OptionSpec{o.Alter, o.Create, o.Describe, o.List, o.Delete} {
		skip := false
		for _, k := range keep {
			skip = skip || a == k
		}
		if !skip {
			out = append(out, a)
		}
	}
	return out
}

// CheckArgs is TopicCommandOptions.checkArgs.
func (o *TopicCommandOptions) CheckArgs() error {
	p, set := o.Parser, o.Options
	checks := []func() error{
		func() error { return commandline.CheckRequiredArgs(p, set, o.ZkConnect) },
		func() error {
			if !o.has(o.List) && !o.has(o.Describe) {
				return commandline.CheckRequiredArgs(p, set, o.Topic)
			}
			return nil
		},
		func() error { return commandline.CheckInvalidArgs(p, set, o.Config, o.except(o.Alter, o.Create)...) },
		func() error { return commandline.CheckInvalidArgs(p, set, o.DeleteConfig, o.except(o.Alter)...) },
		func() error {
			return commandline.CheckInvalidArgs(p, set, o.Partitions, o.except(o.Alter, o.Create)...)
		},
		func() error { return commandline.CheckInvalidArgs(p, set, o.ReplicationFactor, o.except(o.Create)...) },
		func() error {
			return commandline.CheckInvalidArgs(p, set, o.ReplicaAssignment, o.except(o.Create, o.Alter)...)
		},
		func() error {
			if o.has(o.Create) {
				return commandline.CheckInvalidArgs(p, set, o.ReplicaAssignment, o.Partitions, o.ReplicationFactor)
			}
			return nil
		},
		func() error {
			return commandline.CheckInvalidArgs(p, set, o.UnderReplicated, append(o.except(o.Describe), o.Unavailable, o.WithOverrides)...)
		},
		func() error {
			return commandline.CheckInvalidArgs(p, set, o.Unavailable, append(o.except(o.Describe), o.UnderReplicated, o.WithOverrides)...)
		},
		func() error {
			return commandline.CheckInvalidArgs(p, set, o.WithOverrides, append(o.except(o.Describe), o.UnderReplicated, o.Unavailable)...)
		},
		func() error { return commandline.CheckInvalidArgs(p, set, o.IfExists, o.except(o.Alter, o.Delete)...) },
		func() error { return commandline.CheckInvalidArgs(p, set, o.IfNotExists, o.except(o.Create)...) },
	}
	for _, c := range checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}
