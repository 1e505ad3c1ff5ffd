package replicaverification

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/oldclient"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/tools/commandline"
)

const clientID = "replicaVerificationTool"

// dateFormat is "yyyy-MM-dd HH:mm:ss,SSS".
func currentTimeString(t time.Time) string {
	s := t.Format("2006-01-02 15:04:05.000")
	return s[:19] + "," + s[20:]
}

// Run is kafka-replica-verification.sh; SIGINT or SIGTERM stops it (exit 128 + signal).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	code := RunWith(ctx, args, stdout, stderr)
	select {
	case s := <-sig:
		if n, ok := s.(syscall.Signal); ok && code == 0 {
			return 128 + int(n)
		}
	default:
	}
	return code
}

// RunWith runs the verification until ctx ends (0) or replicas disagree on an offset (1).
//
// Kafka 0.10.2: ReplicaVerificationTool.main.
func RunWith(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// The verifying fetcher reports lag on stdout while this goroutine prints too: one lock
	// serialises the lines, as Java's System.out does.
	stdout = &lockedWriter{w: stdout}
	log := commandline.ToolsLogger(stderr, "kafka.tools.ReplicaVerificationTool$")
	p := commandline.NewOptionParser()
	brokerListOpt := p.Accepts("broker-list", "REQUIRED: The list of hostname and port of the server to connect to.").
		WithRequiredArg().DescribedAs("hostname:port,...,hostname:port")
	fetchSizeOpt := p.Accepts("fetch-size", "The fetch size of each request.").WithRequiredArg().DescribedAs("bytes").
		OfType("Integer").DefaultsTo(strconv.Itoa(oldconsumer.FetchSize))
	maxWaitMsOpt := p.Accepts("max-wait-ms", "The max amount of time each fetch request waits.").WithRequiredArg().DescribedAs("ms").
		OfType("Integer").DefaultsTo("1000")
	topicWhiteListOpt := p.Accepts("topic-white-list", "White list of topics to verify replica consistency. Defaults to all topics.").
		WithRequiredArg().DescribedAs("Java regex (String)").DefaultsTo(".*")
	initialOffsetTimeOpt := p.Accepts("time", "Timestamp for getting the initial offsets.").WithRequiredArg().
		DescribedAs("timestamp/-1(latest)/-2(earliest)").OfType("Long").DefaultsTo("-1")
	reportIntervalOpt := p.Accepts("report-interval-ms", "The reporting interval.").WithRequiredArg().DescribedAs("ms").
		OfType("Long").DefaultsTo("30000")
	if len(args) == 0 {
		return commandline.Fail(stderr, commandline.PrintUsageAndDie(p, "Validate that all replicas for a set of topics have the same data."))
	}
	opts, err := p.Parse(args...)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	if err := commandline.CheckRequiredArgs(p, opts, brokerListOpt); err != nil {
		return commandline.Fail(stderr, err)
	}
	filter, err := oldconsumer.NewWhitelist(opts.ValueOf(topicWhiteListOpt))
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" java.lang.RuntimeException: %v\n", err)
		return 1
	}
	fetchSize, err := opts.IntValueOf(fetchSizeOpt)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	maxWaitMs, err := opts.IntValueOf(maxWaitMsOpt)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	initialOffsetTime, err := opts.LongValueOf(initialOffsetTimeOpt)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	reportInterval, err := opts.LongValueOf(reportIntervalOpt)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	log.Info("Getting topic metatdata...")
	brokerList := opts.ValueOf(brokerListOpt)
	if err := commandline.ValidatePortOrDie(p, brokerList); err != nil {
		return commandline.Fail(stderr, err)
	}
	targets, err := oldclient.ParseBrokerList(brokerList)
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" kafka.common.KafkaException: %v\n", err)
		return 1
	}
	md, err := oldclient.FetchTopicMetadata(ctx, nil, targets, clientID, time.Duration(maxWaitMs)*time.Millisecond, 0,
		log.WithField("logger", "kafka.client.ClientUtils$"))
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" kafka.common.KafkaException: %v\n", err)
		return 1
	}
	brokerMap := map[int32]oldclient.BrokerEndPoint{}
	for _, b := range md.Brokers {
		brokerMap[b.NodeID] = oldclient.BrokerEndPoint{ID: b.NodeID, Host: b.Host, Port: b.Port}
	}
	expectedReplicas := map[common.TopicPartition]int{}
	partitionsPerBroker := map[int32][]common.TopicPartition{}
	leadersPerBroker := map[int32][]common.TopicPartition{}
	for _, tm := range md.TopicMetadata {
		if !filter.IsTopicAllowed(tm.Topic, false) {
			continue
		}
		for _, pm := range tm.PartitionMetadata {
			tp := common.TopicPartition{Topic: tm.Topic, Partition: pm.PartitionID}
			for _, r := range pm.Replicas {
				partitionsPerBroker[r] = append(partitionsPerBroker[r], tp)
				expectedReplicas[tp]++
			}
			leadersPerBroker[pm.Leader] = append(leadersPerBroker[pm.Leader], tp)
		}
	}
	if len(expectedReplicas) == 0 {
		log.Errorf("No topics found. %s, if specified, is either filtering out all topics or there is no topic.", topicWhiteListOpt)
		return 1
	}
	log.Debugf("Topic partitions per broker: %v", partitionsPerBroker)
	rb, err := newReplicaBuffer(ctx, expectedReplicas, leadersPerBroker, len(partitionsPerBroker), brokerMap, initialOffsetTime,
		time.Duration(reportInterval)*time.Millisecond, stdout, log)
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" java.lang.AssertionError: assertion failed: %v\n", err)
		return 1
	}
	brokerIDs := make([]int32, 0, len(partitionsPerBroker))
	for id := range partitionsPerBroker {
		brokerIDs = append(brokerIDs, id)
	}
	sort.Slice(brokerIDs, func(i, j int) bool { return brokerIDs[i] < brokerIDs[j] })
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for _, id := range brokerIDs {
		b, ok := brokerMap[id]
		if !ok {
			fmt.Fprintf(stderr, "Exception in thread \"main\" java.util.NoSuchElementException: key not found: %d\n", id)
			return 1
		}
		f := &replicaFetcher{name: fmt.Sprintf("ReplicaFetcher-%d", id), source: b, partitions: partitionsPerBroker[id], buffer: rb,
			fetchSize: fetchSize, maxWait: maxWaitMs, doVerification: id == brokerIDs[0],
			log: log.WithField("logger", "kafka.tools.ReplicaFetcher").WithField("ident", fmt.Sprintf("[ReplicaFetcher-%d], ", id))}
		f.sc, _ = oldconsumer.NewSimpleConsumer(b.Host, b.Port, 30*time.Second, clientID, nil, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.run(runCtx)
		}()
	}
	fmt.Fprintf(stdout, "%s: verification process is started.\n", currentTimeString(time.Now()))
	select {
	case <-ctx.Done():
	case <-rb.mismatch:
	}
	log.Info("Stopping all fetchers")
	cancel()
	wg.Wait()
	if rb.failed() {
		return 1
	}
	return 0
}

// replicaFetcher is the ReplicaFetcher thread of one broker.
type replicaFetcher struct {
	name           string
	source         oldclient.BrokerEndPoint
	partitions     []common.TopicPartition
	buffer         *replicaBuffer
	sc             *oldconsumer.SimpleConsumer
	fetchSize      int32
	maxWait        int32
	doVerification bool
	log            *logrus.Entry
}

func (f *replicaFetcher) run(ctx context.Context) {
	defer f.sc.Close()
	f.log.Info("Starting ")
	builder := oldconsumer.NewFetchRequestBuilder().ReplicaID(oldconsumer.DebuggingConsumerID).MaxWait(f.maxWait).MinBytes(1)
	for ctx.Err() == nil {
		f.doWork(ctx, builder)
	}
	f.log.Info("Stopped ")
}

// doWork is one round: fetch, wait for the others, verify (one fetcher), wait for the
// verification.
func (f *replicaFetcher) doWork(ctx context.Context, builder *oldconsumer.FetchRequestBuilder) {
	fetcherBarrier, verificationBarrier := f.buffer.barriers()
	for _, tp := range f.partitions {
		builder.AddFetch(tp.Topic, tp.Partition, f.buffer.getOffset(tp), f.fetchSize)
	}
	req := builder.Build()
	f.log.Debugf("Issuing fetch request %+v", req)
	resp, err := f.sc.Fetch(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		f.log.WithError(err).Debug("fetch failed")
		for _, tp := range f.partitions {
			f.buffer.addFetchedData(tp, f.source.ID, emptyPartitionData())
		}
	} else {
		for _, t := range resp.Responses {
			for _, p := range t.PartitionResponses {
				tp := common.TopicPartition{Topic: t.Topic, Partition: p.PartitionHeader.Partition}
				records, code, hw := oldconsumer.MessageSet(resp, tp.Topic, tp.Partition)
				f.buffer.addFetchedData(tp, f.source.ID, partitionData{records: records, errorCode: code, hw: hw})
			}
		}
	}
	fetcherBarrier.countDown()
	f.log.Debug("Done fetching")
	if !fetcherBarrier.await(ctx) {
		return
	}
	f.log.Debug("Ready for verification")
	if f.doVerification {
		f.log.Debug("Do verification")
		f.buffer.verifyCheckSum()
		f.buffer.newBarriers()
		f.log.Debug("Created new barrier")
		verificationBarrier.countDown()
	}
	verificationBarrier.await(ctx)
	f.log.Debug("Done verification")
}

// lockedWriter serialises the writes of several goroutines to one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
