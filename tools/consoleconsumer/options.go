package consoleconsumer

import (
	"errors"
	"fmt"
	"io"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/tools/commandline"
)

// parseArgs is ConsoleConsumer.ConsumerConfig: it reads and checks the options. done means the
// tool ends with code (usage, a bad option).
func parseArgs(args []string, stderr io.Writer, log *logrus.Entry) (conf *config, code int, done bool) {
	p := commandline.NewOptionParser()
	topicIDOpt := p.Accepts("topic", "The topic id to consume on.").WithRequiredArg().DescribedAs("topic")
	whitelistOpt := p.Accepts("whitelist", "Whitelist of topics to include for consumption.").WithRequiredArg().DescribedAs("whitelist")
	blacklistOpt := p.Accepts("blacklist", "Blacklist of topics to exclude from consumption.").WithRequiredArg().DescribedAs("blacklist")
	partitionIDOpt := p.Accepts("partition", "The partition to consume from.").WithRequiredArg().DescribedAs("partition").OfType("Integer")
	offsetOpt := p.Accepts("offset", "The offset id to consume from (a non-negative number), or 'earliest' which means from beginning, or 'latest' which means from end").
		WithRequiredArg().DescribedAs("consume offset").DefaultsTo("latest")
	zkConnectOpt := p.Accepts("zookeeper", "REQUIRED (only when using old consumer): The connection string for the zookeeper connection in the form host:port. "+
		"Multiple URLS can be given to allow fail-over.").WithRequiredArg().DescribedAs("urls")
	consumerPropertyOpt := p.Accepts("consumer-property", "A mechanism to pass user-defined properties in the form key=value to the consumer.").
		WithRequiredArg().DescribedAs("consumer_prop")
	consumerConfigOpt := p.Accepts("consumer.config", "Consumer config properties file. Note that [consumer-property] takes precedence over this config.").
		WithRequiredArg().DescribedAs("config file")
	formatterOpt := p.Accepts("formatter", "The name of a class to use for formatting kafka messages for display.").
		WithRequiredArg().DescribedAs("class").DefaultsTo(commandline.DefaultMessageFormatterClass)
	formatterArgOpt := p.Accepts("property", "The properties to initialize the message formatter.").WithRequiredArg().DescribedAs("prop")
	deleteConsumerOffsetsOpt := p.Accepts("delete-consumer-offsets", "If specified, the consumer path in zookeeper is deleted when starting up")
	resetBeginningOpt := p.Accepts("from-beginning", "If the consumer does not already have an established offset to consume from, "+
		"start with the earliest message present in the log rather than the latest message.")
	maxMessagesOpt := p.Accepts("max-messages", "The maximum number of messages to consume before exiting. If not set, consumption is continual.").
		WithRequiredArg().DescribedAs("num_messages").OfType("Integer")
	timeoutMsOpt := p.Accepts("timeout-ms", "If specified, exit if no message is available for consumption for the specified interval.").
		WithRequiredArg().DescribedAs("timeout_ms").OfType("Integer")
	skipMessageOnErrorOpt := p.Accepts("skip-message-on-error", "If there is an error when processing a message, skip it instead of halt.")
	csvReporterOpt := p.Accepts("csv-reporter-enabled", "If set, the CSV metrics reporter will be enabled (not supported by zkafka)")
	metricsDirOpt := p.Accepts("metrics-dir", "If csv-reporter-enable is set, and this parameter isset, the csv metrics will be outputed here").
		WithRequiredArg().DescribedAs("metrics directory")
	newConsumerOpt := p.Accepts("new-consumer", "Use the new consumer implementation. This is the default.")
	bootstrapServerOpt := p.Accepts("bootstrap-server", "REQUIRED (unless old consumer is used): The server to connect to.").
		WithRequiredArg().DescribedAs("server to connect to")
	keyDeserializerOpt := p.Accepts("key-deserializer", "").WithRequiredArg().DescribedAs("deserializer for key")
	valueDeserializerOpt := p.Accepts("value-deserializer", "").WithRequiredArg().DescribedAs("deserializer for values")
	systestOpt := p.Accepts("enable-systest-events", "Log lifecycle events of the consumer in addition to logging consumed "+
		"messages. (This is specific for system tests.)")
	_ = metricsDirOpt

	fail := func(err error) (*config, int, bool) { return nil, commandline.Fail(stderr, err), true }
	usage := func(msg string) (*config, int, bool) { return fail(commandline.PrintUsageAndDie(p, msg)) }
	if len(args) == 0 {
		return usage("The console consumer is a tool that reads data from Kafka and outputs it to standard output.")
	}
	opts, err := p.Parse(args...)
	if err != nil {
		var pe *commandline.ParseError
		if errors.As(err, &pe) { // Utils.croak: the message alone
			fmt.Fprintln(stderr, pe.Message)
			return nil, 1, true
		}
		return fail(err)
	}
	c := &config{groupIDPassed: true, useOldConsumer: opts.Has(zkConnectOpt), enableSystestEventsLogging: opts.Has(systestOpt),
		zkConnectionStr: opts.ValueOf(zkConnectOpt), fromBeginning: opts.Has(resetBeginningOpt),
		skipMessageOnError: opts.Has(skipMessageOnErrorOpt), maxMessages: -1, timeoutMs: -1,
		bootstrapServer: opts.ValueOf(bootstrapServerOpt), keyDeserializer: opts.ValueOf(keyDeserializerOpt),
		valueDeserializer: opts.ValueOf(valueDeserializerOpt), deleteConsumerOffsets: opts.Has(deleteConsumerOffsetsOpt)}
	extra, _, err := commandline.ParseKeyValueArgs(opts.ValuesOf(consumerPropertyOpt), true)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, 1, true
	}
	c.extraConsumerProps = extra
	if c.consumerProps, err = loadConsumerConfigFile(opts.ValueOf(consumerConfigOpt)); err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" java.io.FileNotFoundException: %v\n", err)
		return nil, 1, true
	}
	if opts.Has(partitionIDOpt) {
		n, err := opts.IntValueOf(partitionIDOpt)
		if err != nil {
			return fail(err)
		}
		c.partitionArg = &n
	}
	formatterArgs, _, err := commandline.ParseKeyValueArgs(opts.ValuesOf(formatterArgOpt), true)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, 1, true
	}
	if opts.Has(maxMessagesOpt) {
		n, err := opts.IntValueOf(maxMessagesOpt)
		if err != nil {
			return fail(err)
		}
		c.maxMessages = int64(n)
	}
	if opts.Has(timeoutMsOpt) {
		n, err := opts.IntValueOf(timeoutMsOpt)
		if err != nil {
			return fail(err)
		}
		c.timeoutMs = int64(n)
	}
	if c.formatter, err = commandline.NewMessageFormatter(opts.ValueOf(formatterOpt), log); err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return nil, 1, true
	}
	if err := c.formatter.Init(formatterArgs); err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return nil, 1, true
	}

	if c.useOldConsumer {
		switch {
		case opts.Has(bootstrapServerOpt):
			return usage(fmt.Sprintf("Option %s is not valid with %s.", bootstrapServerOpt, zkConnectOpt))
		case opts.Has(newConsumerOpt):
			return usage(fmt.Sprintf("Option %s is not valid with %s.", newConsumerOpt, zkConnectOpt))
		}
		var given []*commandline.OptionSpec
		for _, o := range []*commandline.OptionSpec{topicIDOpt, whitelistOpt, blacklistOpt} {
			if opts.Has(o) {
				given = append(given, o)
			}
		}
		if len(given) != 1 {
			return usage("Exactly one of whitelist/blacklist/topic is required.")
		}
		c.topicArg = opts.ValueOf(given[0])
		if opts.Has(blacklistOpt) {
			c.filterSpec, err = oldconsumer.NewBlacklist(c.topicArg)
		} else {
			c.filterSpec, err = oldconsumer.NewWhitelist(c.topicArg)
		}
		if err != nil {
			fmt.Fprintf(stderr, "Exception in thread \"main\" java.lang.RuntimeException: %v\n", err)
			return nil, 1, true
		}
		fmt.Fprintf(stderr, "Using the ConsoleConsumer with old consumer is deprecated and will be removed "+
			"in a future major release. Consider using the new consumer by passing %s instead of %s.\n", bootstrapServerOpt, zkConnectOpt)
	} else {
		n := 0
		for _, o := range []*commandline.OptionSpec{topicIDOpt, whitelistOpt} {
			if opts.Has(o) {
				n++
			}
		}
		if n != 1 {
			return usage("Exactly one of whitelist/topic is required.")
		}
		c.topicArg, c.whitelistArg = opts.ValueOf(topicIDOpt), opts.ValueOf(whitelistOpt)
	}
	if c.useOldConsumer && (c.partitionArg != nil || opts.Has(offsetOpt)) {
		return usage("Partition-offset based consumption is supported in the new consumer only.")
	}
	if c.partitionArg != nil {
		if !opts.Has(topicIDOpt) {
			return usage("The topic is required when partition is specified.")
		}
		if c.fromBeginning && opts.Has(offsetOpt) {
			return usage("Options from-beginning and offset cannot be specified together.")
		}
	} else if opts.Has(offsetOpt) {
		return usage("The partition is required when offset is specified.")
	}
	switch {
	case opts.Has(offsetOpt):
		o, ok := parseOffset(opts.ValueOf(offsetOpt))
		if !ok {
			return usage(describeOffsetError(opts.ValueOf(offsetOpt)))
		}
		c.offsetArg, c.offsetGiven = o, true
	case c.fromBeginning:
		c.offsetArg = oldconsumer.EarliestTime
	default:
		c.offsetArg = oldconsumer.LatestTime
	}
	if !c.useOldConsumer {
		if err := commandline.CheckRequiredArgs(p, opts, bootstrapServerOpt); err != nil {
			return fail(err)
		}
	}
	if opts.Has(csvReporterOpt) {
		fmt.Fprintln(stderr, "--csv-reporter-enabled is not supported by zkafka: there is no CSV metrics reporter (docs/deviations.md).")
		return nil, 1, true
	}
	if _, ok := c.consumerProps["group.id"]; !ok {
		c.consumerProps["group.id"] = randomGroupID()
		c.groupIDPassed = false
	}
	return c, 0, false
}
