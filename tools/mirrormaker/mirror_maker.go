package mirrormaker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/clients/producer"
	"github.com/zkafka/zkafka/tools/commandline"
)

// Deps are the mirror maker's outside world; every field may be left zero.
type Deps struct {
	// OldConsumerDeps are passed to each ZookeeperConsumerConnector (a nil Logger: the tool's).
	OldConsumerDeps oldconsumer.Deps
	// Log is the tool's logger (nil: WARN and above to stderr in tools-log4j's layout).
	Log *logrus.Entry
}

// MirrorMaker is one run of the tool: the shared producer, the threads and the state their
// callbacks share.
//
// Kafka 0.10.2: object kafka.tools.MirrorMaker.
type MirrorMaker struct {
	producer               *MirrorMakerProducer
	threads                []*MirrorMakerThread
	messageHandler         MirrorMakerMessageHandler
	offsetCommitIntervalMs int64
	abortOnSendFailure     bool

	isShuttingDown       atomic.Bool
	exitingOnSendFailure atomic.Bool
	// numDroppedMessages counts the records whose send failed for good (the
	// MirrorMaker-numDroppedMessages gauge).
	numDroppedMessages atomic.Int32
	// abnormal is closed when a thread exited while no shutdown was under way.
	abnormal     chan struct{}
	abnormalOnce sync.Once

	log *logrus.Entry
}

// NumDroppedMessages is the MirrorMaker-numDroppedMessages gauge.
func (mm *MirrorMaker) NumDroppedMessages() int32 { return mm.numDroppedMessages.Load() }

// Run is kafka-mirror-maker.sh: SIGINT and SIGTERM shut it down cleanly as Kafka's
// MirrorMakerShutdownHook does (the exit code is then 128 + the signal, as the JVM's).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	code := RunWith(ctx, args, stdout, stderr, Deps{})
	select {
	case s := <-sig:
		if n, ok := s.(syscall.Signal); ok && code == 0 {
			return 128 + int(n)
		}
	default:
	}
	return code
}

type options struct {
	parser                                                       *commandline.OptionParser
	consumerConfig, newConsumer, producerConfig, numStreams      *commandline.OptionSpec
	whitelist, blacklist, offsetCommitInterval                   *commandline.OptionSpec
	rebalanceListener, rebalanceListenerArgs                     *commandline.OptionSpec
	messageHandler, messageHandlerArgs, abortOnSendFailure, help *commandline.OptionSpec
}

func newOptions() *options {
	p := commandline.NewOptionParser()
	return &options{parser: p,
		consumerConfig: p.Accepts("consumer.config", "Embedded consumer config for consuming from the source cluster.").
			WithRequiredArg().DescribedAs("config file"),
		newConsumer: p.Accepts("new.consumer", "Use new consumer in mirror maker (this is the default)."),
		producerConfig: p.Accepts("producer.config", "Embedded producer config.").
			WithRequiredArg().DescribedAs("config file"),
		numStreams: p.Accepts("num.streams", "Number of consumption streams.").
			WithRequiredArg().DescribedAs("Number of threads").OfType("Integer").DefaultsTo("1"),
		whitelist: p.Accepts("whitelist", "Whitelist of topics to mirror.").
			WithRequiredArg().DescribedAs("Java regex (String)"),
		blacklist: p.Accepts("blacklist", "Blacklist of topics to mirror. Only old consumer supports blacklist.").
			WithRequiredArg().DescribedAs("Java regex (String)"),
		offsetCommitInterval: p.Accepts("offset.commit.interval.ms", "Offset commit interval in ms.").
			WithRequiredArg().DescribedAs("offset commit interval in millisecond").OfType("Integer").DefaultsTo("60000"),
		rebalanceListener: p.Accepts("consumer.rebalance.listener", "The consumer rebalance listener to use for mirror maker consumer.").
			WithRequiredArg().DescribedAs("A custom rebalance listener of type ConsumerRebalanceListener"),
		rebalanceListenerArgs: p.Accepts("rebalance.listener.args", "Arguments used by custom rebalance listener for mirror maker consumer.").
			WithRequiredArg().DescribedAs("Arguments passed to custom rebalance listener constructor as a string."),
		messageHandler: p.Accepts("message.handler", "Message handler which will process every record in-between consumer and producer.").
			WithRequiredArg().DescribedAs("A custom message handler of type MirrorMakerMessageHandler"),
		messageHandlerArgs: p.Accepts("message.handler.args", "Arguments used by custom message handler for mirror maker.").
			WithRequiredArg().DescribedAs("Arguments passed to message handler constructor."),
		abortOnSendFailure: p.Accepts("abort.on.send.failure", "Configure the mirror maker to exit on a failed send.").
			WithRequiredArg().DescribedAs("Stop the entire mirror maker when a send failure occurs").DefaultsTo("true"),
		help: p.Accepts("help", "Print this message."),
	}
}

// startError is an exception MirrorMaker.main's catch-all logs ("Exception when starting mirror
// maker.") before the JVM ends with exit 1.
type startError struct {
	class string
	err   error
}

func (e *startError) Error() string { return e.class + ": " + e.err.Error() }

// RunWith is Run with explicit dependencies; ctx ending is the shutdown hook.
//
// Kafka 0.10.2: MirrorMaker.main.
func RunWith(ctx context.Context, args []string, stdout, stderr io.Writer, deps Deps) int {
	log := deps.Log
	if log == nil {
		log = commandline.ToolsLogger(stderr, "kafka.tools.MirrorMaker$")
	}
	log.Info("Starting mirror maker")
	mm, code, ok := start(ctx, args, stdout, stderr, log, deps)
	if !ok {
		return code
	}
	for _, t := range mm.threads {
		t.start()
	}
	select {
	case <-ctx.Done():
		mm.CleanShutdown()
		return 0
	case <-mm.abnormal:
		// sys.exit(-1): the shutdown hook runs first.
		mm.CleanShutdown()
		return 255
	case <-mm.allStopped():
		mm.CleanShutdown()
		return 0
	}
}

// allStopped is closed once every thread has stopped.
func (mm *MirrorMaker) allStopped() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		for _, t := range mm.threads {
			<-t.shutdownLatch
		}
		close(done)
	}()
	return done
}

// start parses the command line and builds the producer, the consumers, the threads and the
// message handler; ok false means the tool ends with code.
func start(ctx context.Context, args []string, stdout, stderr io.Writer, log *logrus.Entry, deps Deps) (*MirrorMaker, int, bool) {
	o := newOptions()
	if len(args) == 0 {
		return nil, commandline.Fail(stderr, commandline.PrintUsageAndDie(o.parser, "Continuously copy data between two Kafka clusters.")), false
	}
	opts, err := o.parser.Parse(args...)
	if err != nil {
		var pe *commandline.ParseError
		if errors.As(err, &pe) {
			return nil, startFailed(log, &startError{pe.Exception, errors.New(pe.Message)}), false
		}
		return nil, startFailed(log, err), false
	}
	if opts.Has(o.help) {
		o.parser.PrintHelpOn(stdout)
		return nil, 0, false
	}
	if err := commandline.CheckRequiredArgs(o.parser, opts, o.consumerConfig, o.producerConfig); err != nil {
		return nil, commandline.Fail(stderr, err), false
	}
	consumerProps, err := config.LoadProps(opts.ValueOf(o.consumerConfig))
	if err != nil {
		return nil, startFailed(log, &startError{"java.io.FileNotFoundException", err}), false
	}
	_, useOldConsumer := consumerProps["zookeeper.connect"]
	if useOldConsumer {
		switch {
		case opts.Has(o.newConsumer):
			log.Error("The consumer configuration parameter `zookeeper.connect` is not valid when using --new.consumer")
			return nil, 1, false
		case hasKey(consumerProps, "bootstrap.servers"):
			log.Error("The configuration parameters `zookeeper.connect` (old consumer) and `bootstrap.servers` (new consumer) cannot be used together.")
			return nil, 1, false
		case opts.Has(o.whitelist) == opts.Has(o.blacklist):
			log.Error("Exactly one of whitelist or blacklist is required.")
			return nil, 1, false
		}
	} else {
		switch {
		case opts.Has(o.blacklist):
			log.Error("blacklist can not be used when using new consumer in mirror maker. Use whitelist instead.")
			return nil, 1, false
		case !opts.Has(o.whitelist):
			log.Error("whitelist must be specified when using new consumer in mirror maker.")
			return nil, 1, false
		}
		fmt.Fprintln(stderr, "The new consumer (--new.consumer, or a --consumer.config without zookeeper.connect) is not supported by zkafka yet; "+
			"set zookeeper.connect in the consumer config to mirror with the old consumer.")
		return nil, 1, false
	}

	mm := &MirrorMaker{log: log, abnormal: make(chan struct{})}
	abort := opts.ValueOf(o.abortOnSendFailure)
	switch strings.ToLower(abort) {
	case "true", "false":
		mm.abortOnSendFailure = strings.EqualFold(abort, "true")
	default:
		return nil, startFailed(log, &startError{"java.lang.IllegalArgumentException", fmt.Errorf("For input string: %q", abort)}), false
	}
	interval, err := opts.IntValueOf(o.offsetCommitInterval)
	if err != nil {
		return nil, startFailed(log, err), false
	}
	mm.offsetCommitIntervalMs = int64(interval)
	numStreams, err := opts.IntValueOf(o.numStreams)
	if err != nil {
		return nil, startFailed(log, err), false
	}

	// The message handler and the rebalance listener are looked up before anything connects.
	if mm.messageHandler, err = newMessageHandler(opts.ValueOf(o.messageHandler), optional(opts, o.messageHandlerArgs)); err != nil {
		return nil, startFailed(log, err), false
	}
	var customListener oldconsumer.ConsumerRebalanceListener
	if class := opts.ValueOf(o.rebalanceListener); class != "" {
		if customListener, err = newRebalanceListener(class, optional(opts, o.rebalanceListenerArgs)); err != nil {
			return nil, startFailed(log, err), false
		}
	}

	producerProps, err := config.LoadProps(opts.ValueOf(o.producerConfig))
	if err != nil {
		return nil, startFailed(log, &startError{"java.io.FileNotFoundException", err}), false
	}
	// Defaults to no data loss settings.
	mm.maybeSetDefaultProperty(producerProps, producer.RetriesConfig, strconv.Itoa(math.MaxInt32))
	mm.maybeSetDefaultProperty(producerProps, producer.MaxBlockMsConfig, strconv.FormatInt(math.MaxInt64, 10))
	mm.maybeSetDefaultProperty(producerProps, producer.AcksConfig, "all")
	mm.maybeSetDefaultProperty(producerProps, producer.MaxInFlightRequestsPerConnectionConfig, "1")
	producerProps[producer.KeySerializerClassConfig] = "org.apache.kafka.common.serialization.ByteArraySerializer"
	producerProps[producer.ValueSerializerClassConfig] = "org.apache.kafka.common.serialization.ByteArraySerializer"
	if mm.producer, err = NewMirrorMakerProducer(mm, producerProps, stderr); err != nil {
		return nil, startFailed(log, err), false
	}

	consumers, err := mm.createOldConsumers(ctx, int(numStreams), consumerProps, customListener,
		optional(opts, o.whitelist), optional(opts, o.blacklist), deps)
	if err != nil {
		mm.producer.Close()
		return nil, startFailed(log, err), false
	}
	for i, c := range consumers {
		mm.threads = append(mm.threads, newMirrorMakerThread(mm, c, i))
	}
	return mm, 0, true
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

func optional(opts *commandline.OptionSet, s *commandline.OptionSpec) *string {
	if !opts.Has(s) {
		return nil
	}
	v := opts.ValueOf(s)
	return &v
}

// startFailed logs what MirrorMaker.main's catch-all logs; the JVM then ends with exit 1.
func startFailed(log *logrus.Entry, err error) int {
	log.Error("Exception when starting mirror maker.")
	var se *startError
	var ce *config.ConfigException
	switch {
	case errors.As(err, &se):
		log.Logger.Out.Write([]byte(se.Error() + "\n")) //nolint:errcheck // the stack trace's first line
	case errors.As(err, &ce):
		log.Logger.Out.Write([]byte("org.apache.kafka.common.config.ConfigException: " + err.Error() + "\n")) //nolint:errcheck
	default:
		log.Logger.Out.Write([]byte(err.Error() + "\n")) //nolint:errcheck
	}
	return 1
}

// maybeSetDefaultProperty sets name to def when props lack it, and says so when the user's value
// differs from the safe default.
//
// Kafka 0.10.2: MirrorMaker.maybeSetDefaultProperty.
func (mm *MirrorMaker) maybeSetDefaultProperty(props map[string]string, name, def string) {
	v, ok := props[name]
	if !ok {
		props[name] = def
		return
	}
	if v != def {
		mm.log.Infof("Property %s is overridden to %s - data loss or message reordering is possible.", name, v)
	}
}

// createOldConsumers makes one ZookeeperConsumerConnector per stream (client.id
// <group.id>-<i>), with auto commit off and consumer.timeout.ms 10000 unless configured, each
// with the internal rebalance listener that flushes and commits before partitions are released.
//
// Kafka 0.10.2: MirrorMaker.createOldConsumers.
func (mm *MirrorMaker) createOldConsumers(ctx context.Context, numStreams int, props map[string]string,
	custom oldconsumer.ConsumerRebalanceListener, whitelist, blacklist *string, deps Deps) ([]MirrorMakerBaseConsumer, error) {
	mm.maybeSetDefaultProperty(props, "auto.commit.enable", "false")
	mm.maybeSetDefaultProperty(props, "consumer.timeout.ms", "10000")
	var filter oldconsumer.TopicFilter
	var err error
	switch {
	case whitelist != nil:
		filter, err = oldconsumer.NewWhitelist(*whitelist)
	case blacklist != nil:
		filter, err = oldconsumer.NewBlacklist(*blacklist)
	default:
		err = &startError{"java.lang.IllegalArgumentException", errors.New("Either whitelist or blacklist should be defined!")}
	}
	if err != nil {
		return nil, err
	}
	cdeps := deps.OldConsumerDeps
	if cdeps.Logger == nil {
		cdeps.Logger = mm.log.WithField("logger", "kafka.consumer")
	}
	var out []MirrorMakerBaseConsumer
	var connectors []*oldconsumer.ZookeeperConsumerConnector
	fail := func(err error) ([]MirrorMakerBaseConsumer, error) {
		for _, c := range connectors {
			c.Shutdown()
		}
		return nil, err
	}
	for i := 0; i < numStreams; i++ {
		p := make(map[string]string, len(props)+1)
		for k, v := range props {
			p[k] = v
		}
		p["client.id"] = props["group.id"] + "-" + strconv.Itoa(i)
		cfg, err := oldconsumer.NewConsumerConfig(p, cdeps.Logger.WithField("logger", "kafka.utils.VerifiableProperties"))
		if err != nil {
			return fail(err)
		}
		conn, err := oldconsumer.NewZookeeperConsumerConnector(ctx, cfg, cdeps)
		if err != nil {
			return fail(err)
		}
		connectors = append(connectors, conn)
		c := newMirrorMakerOldConsumer(conn, filter)
		if err := conn.SetConsumerRebalanceListener(&internalRebalanceListenerForOldConsumer{mm: mm, consumer: c, custom: custom}); err != nil {
			return fail(err)
		}
		out = append(out, c)
	}
	return out, nil
}

// commitOffsets commits what consumer has received, unless a send failed for good (then the
// offsets stay where they were, so that nothing unsent is marked as copied).
//
// Kafka 0.10.2: MirrorMaker.commitOffsets.
func (mm *MirrorMaker) commitOffsets(c MirrorMakerBaseConsumer) {
	if mm.exitingOnSendFailure.Load() {
		mm.log.Info("Exiting on send failure, skip committing offsets.")
		return
	}
	mm.log.Trace("Committing offsets.")
	if err := c.Commit(); err != nil {
		mm.log.WithError(err).Error("Failed to commit offsets")
	}
}

// CleanShutdown stops the threads (each flushes the producer and commits on its way out) and
// then closes the producer; later calls return at once.
//
// Kafka 0.10.2: MirrorMaker.cleanShutdown.
func (mm *MirrorMaker) CleanShutdown() {
	if !mm.isShuttingDown.CompareAndSwap(false, true) {
		return
	}
	mm.log.Info("Start clean shutdown.")
	mm.log.Info("Shutting down consumer threads.")
	for _, t := range mm.threads {
		t.shutdown()
	}
	for _, t := range mm.threads {
		t.awaitShutdown()
	}
	mm.log.Info("Closing producer.")
	mm.producer.Close()
	mm.log.Info("Kafka mirror maker shutdown successfully")
}

// exitAbnormally is sys.exit(-1) from a thread: RunWith shuts down and returns 255.
func (mm *MirrorMaker) exitAbnormally() { mm.abnormalOnce.Do(func() { close(mm.abnormal) }) }
