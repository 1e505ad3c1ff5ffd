package perf

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/clients/producer"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/tools/commandline"
)

func argParser() *commandline.ArgumentParser {
	p := commandline.NewArgumentParser("producer-performance", "This tool is used to verify the producer performance.")
	p.AddArgument("--topic").Required().Metavar("TOPIC").Help("produce messages to this topic")
	p.AddArgument("--num-records").Required().Type("Long").Metavar("NUM-RECORDS").Dest("numRecords").Help("number of messages to produce")
	g := p.AddMutuallyExclusiveGroup().Required()
	g.AddArgument("--record-size").Type("Integer").Metavar("RECORD-SIZE").Dest("recordSize").
		Help("message size in bytes. Note that you must provide exactly one of --record-size or --payload-file.")
	g.AddArgument("--payload-file").Metavar("PAYLOAD-FILE").Dest("payloadFile").
		Help("file to read the message payloads from. This works only for UTF-8 encoded text files. Payloads will be read from this file and a payload will be randomly selected when sending messages. Note that you must provide exactly one of --record-size or --payload-file.")
	p.AddArgument("--payload-delimiter").Metavar("PAYLOAD-DELIMITER").Dest("payloadDelimiter").Default(`\n`).
		Help("provides delimiter to be used when --payload-file is provided. Defaults to new line. Note that this parameter will be ignored if --payload-file is not provided.")
	p.AddArgument("--throughput").Required().Type("Integer").Metavar("THROUGHPUT").
		Help("throttle maximum message throughput to *approximately* THROUGHPUT messages/sec")
	p.AddArgument("--producer-props").OneOrMore().Metavar("PROP-NAME=PROP-VALUE").Dest("producerConfig").
		Help("kafka producer related configuration properties like bootstrap.servers,client.id etc. These configs take precedence over those passed via --producer.config.")
	p.AddArgument("--producer.config").Metavar("CONFIG-FILE").Dest("producerConfigFile").Help("producer config properties file.")
	p.AddArgument("--print-metrics").StoreTrue().Dest("printMetrics").Help("print out metrics at the end of the test.")
	return p
}

// uncaught prints an exception that escapes main, as the JVM does, and returns exit code 1.
func uncaught(stderr io.Writer, class, msg string) int {
	fmt.Fprintf(stderr, "Exception in thread \"main\" %s: %s\n", class, msg)
	return 1
}

// RunProducerPerformance is kafka-producer-perf-test; it returns the exit code.
//
// Kafka 0.10.2: ProducerPerformance.main.
func RunProducerPerformance(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	parser := argParser()
	ns, code, ok := parser.RunParse(args, stdout, stderr)
	if !ok {
		return code
	}
	topic := ns.String("topic")
	numRecords := ns.Long("numRecords")
	throughput := ns.Int("throughput")
	producerProps := ns.List("producerConfig")
	configFile := ns.String("producerConfigFile")
	payloadFile := ns.String("payloadFile")
	delimiter := ns.String("payloadDelimiter")
	if delimiter == `\n` {
		delimiter = "\n"
	}
	if producerProps == nil && configFile == "" {
		parser.HandleError(stderr, &commandline.ArgumentParserError{Parser: parser, Message: "Either --producer-props or --producer.config must be specified."})
		return 1
	}
	var payloads [][]byte
	if payloadFile != "" {
		abs, _ := filepath.Abs(payloadFile)
		fmt.Fprintf(stdout, "Reading payloads from: %s\n", abs)
		data, err := os.ReadFile(payloadFile)
		if err != nil || len(data) == 0 {
			return uncaught(stderr, "java.lang.IllegalArgumentException", "File does not exist or empty file provided.")
		}
		re, err := regexp.Compile(delimiter)
		if err != nil {
			return uncaught(stderr, "java.util.regex.PatternSyntaxException", err.Error())
		}
		parts := re.Split(string(data), -1)
		for len(parts) > 1 && parts[len(parts)-1] == "" { // Java's split drops trailing empty strings
			parts = parts[:len(parts)-1]
		}
		fmt.Fprintf(stdout, "Number of messages read: %d\n", len(parts))
		for _, s := range parts {
			payloads = append(payloads, []byte(s))
		}
	}
	props := map[string]string{}
	if configFile != "" {
		p, err := config.LoadProps(configFile)
		if err != nil {
			return uncaught(stderr, "java.io.FileNotFoundException", fmt.Sprintf("%s (No such file or directory)", configFile))
		}
		props = p
	}
	for _, prop := range producerProps {
		pieces := strings.Split(prop, "=")
		if len(pieces) != 2 {
			return uncaught(stderr, "java.lang.IllegalArgumentException", "Invalid property: "+prop)
		}
		props[pieces[0]] = pieces[1]
	}
	props[producer.KeySerializerClassConfig] = "org.apache.kafka.common.serialization.ByteArraySerializer"
	props[producer.ValueSerializerClassConfig] = "org.apache.kafka.common.serialization.ByteArraySerializer"
	prod, err := producer.NewKafkaProducerWith[[]byte, []byte](props, nil, nil, producer.ProducerOptions[[]byte, []byte]{
		Log: commandline.ToolsLogger(stderr, "org.apache.kafka.clients.producer.KafkaProducer")})
	if err != nil {
		return constructionFailure(stderr, err)
	}

	var payload []byte
	random := newJavaRandom(0)
	if payloadFile == "" {
		payload = make([]byte, ns.Int("recordSize"))
		for i := range payload {
			payload[i] = byte(random.nextInt(26) + 65)
		}
	}
	stats := newStats(numRecords, 5000, stdout)
	startMs := time.Now().UnixMilli()
	throttler := commandline.NewThroughputThrottler(ctx, int64(throughput), startMs)
	for i := int64(0); i < numRecords && ctx.Err() == nil; i++ {
		if payloadFile != "" {
			payload = payloads[random.nextInt(int32(len(payloads)))]
		}
		sendStartMs := time.Now().UnixMilli()
		cb := stats.nextCompletion(sendStartMs, len(payload), stderr)
		if _, err := prod.Send(producer.ProducerRecord[[]byte, []byte]{Topic: topic, Value: payload}, cb); err != nil {
			prod.Close(0) //nolint:errcheck
			return uncaught(stderr, "java.lang.IllegalStateException", err.Error())
		}
		if throttler.ShouldThrottle(i, sendStartMs) {
			throttler.Throttle()
		}
	}
	if !ns.Bool("printMetrics") {
		prod.Close(math.MaxInt64) //nolint:errcheck
		stats.printTotal()
		return 0
	}
	prod.Flush()
	stats.printTotal()
	PrintMetrics(stdout, prod.Metrics())
	prod.Close(math.MaxInt64) //nolint:errcheck
	return 0
}

// constructionFailure prints a failed producer construction as the JVM prints the exception.
func constructionFailure(stderr io.Writer, err error) int {
	var ce *config.ConfigException
	if cerr, ok := err.(*config.ConfigException); ok {
		ce = cerr
	}
	if ce != nil {
		return uncaught(stderr, "org.apache.kafka.common.config.ConfigException", ce.Msg)
	}
	return uncaught(stderr, "org.apache.kafka.common.KafkaException", err.Error())
}

// stats is the perf test's bookkeeping: totals, a reporting window, and a sample of latencies.
//
// Kafka 0.10.2: ProducerPerformance.Stats.
type stats struct {
	out, stderr        io.Writer
	mu                 sync.Mutex // callbacks run on the producer's goroutine; the total is printed after Close
	start, windowStart int64
	latencies          []int32
	sampling           int64
	iteration          int64
	index              int
	count, bytes       int64
	maxLatency         int32
	totalLatency       int64
	windowCount        int64
	windowMaxLatency   int32
	windowTotalLatency int64
	windowBytes        int64
	reportingInterval  int64
}

func newStats(numRecords, reportingInterval int64, out io.Writer) *stats {
	now := time.Now().UnixMilli()
	sampling := int64(1)
	if numRecords > 0 {
		sampling = numRecords / min(numRecords, 500000)
	}
	return &stats{out: out, start: now, windowStart: now, sampling: sampling,
		latencies: make([]int32, numRecords/sampling+1), reportingInterval: reportingInterval}
}

func (s *stats) record(iter int64, latency int32, bytes int, nowMs int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count++
	s.bytes += int64(bytes)
	s.totalLatency += int64(latency)
	s.maxLatency = max(s.maxLatency, latency)
	s.windowCount++
	s.windowBytes += int64(bytes)
	s.windowTotalLatency += int64(latency)
	s.windowMaxLatency = max(s.windowMaxLatency, latency)
	if iter%s.sampling == 0 && s.index < len(s.latencies) {
		s.latencies[s.index] = latency
		s.index++
	}
	if nowMs-s.windowStart >= s.reportingInterval {
		s.printWindow()
		s.newWindow()
	}
}

// nextCompletion is the callback of the next record.
//
// Kafka 0.10.2: Stats.nextCompletion and PerfCallback.
//
// The callback captures as little as it can (the iteration, and the send time relative to the
// start packed with the size), since a run holds one for every record buffer.memory can hold.
func (s *stats) nextCompletion(startMs int64, bytes int, stderr io.Writer) producer.Callback {
	iter := s.iteration
	s.iteration++
	s.stderr = stderr
	packed := (startMs-s.start)<<32 | int64(uint32(bytes))
	return func(_ *producer.RecordMetadata, err error) {
		now := time.Now().UnixMilli()
		start, size := s.start+packed>>32, int(uint32(packed))
		s.record(iter, int32(now-start), size, now)
		if err != nil {
			name := protocol.ExceptionName(err)
			if name == "" {
				name = "org.apache.kafka.common.KafkaException"
			}
			fmt.Fprintf(s.stderr, "%s: %s\n", name, protocol.ExceptionMessage(err))
		}
	}
}

func (s *stats) printWindow() {
	elapsed := time.Now().UnixMilli() - s.windowStart
	recsPerSec := 1000.0 * float64(s.windowCount) / float64(elapsed)
	mbPerSec := 1000.0 * float64(s.windowBytes) / float64(elapsed) / (1024.0 * 1024.0)
	fmt.Fprintf(s.out, "%d records sent, %s records/sec (%s MB/sec), %s ms avg latency, %.1f max latency.\n",
		s.windowCount, javaFloat(recsPerSec, 1), javaFloat(mbPerSec, 2), javaFloat(float64(s.windowTotalLatency)/float64(s.windowCount), 1), float64(s.windowMaxLatency))
}

func (s *stats) newWindow() {
	s.windowStart = time.Now().UnixMilli()
	s.windowCount, s.windowMaxLatency, s.windowTotalLatency, s.windowBytes = 0, 0, 0, 0
}

// printTotal is the final line.
//
// Kafka 0.10.2: Stats.printTotal.
func (s *stats) printTotal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	elapsed := time.Now().UnixMilli() - s.start
	recsPerSec := 1000.0 * float64(s.count) / float64(elapsed)
	mbPerSec := 1000.0 * float64(s.bytes) / float64(elapsed) / (1024.0 * 1024.0)
	p := percentiles(s.latencies, s.index, 0.5, 0.95, 0.99, 0.999)
	fmt.Fprintf(s.out, "%d records sent, %s records/sec (%s MB/sec), %s ms avg latency, %.2f ms max latency, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.\n",
		s.count, javaF(recsPerSec), javaFloat(mbPerSec, 2), javaFloat(float64(s.totalLatency)/float64(s.count), 2), float64(s.maxLatency), p[0], p[1], p[2], p[3])
}

// javaF is Java's %f (6 decimals; NaN and Infinity spelled Java's way).
func javaF(v float64) string { return javaFloat(v, 6) }

// javaFloat is Java's "%.<prec>f": a run shorter than a millisecond divides by zero, as in
// Kafka, and Java prints Infinity and NaN where Go's %f prints +Inf and NaN.
func javaFloat(v float64, prec int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func percentiles(latencies []int32, count int, ps ...float64) []int32 {
	size := min(count, len(latencies))
	sorted := append([]int32(nil), latencies[:size]...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	out := make([]int32, len(ps))
	for i, p := range ps {
		idx := int(p * float64(size))
		if idx < len(sorted) {
			out[i] = sorted[idx]
		}
	}
	return out
}

// PrintMetrics prints metrics sorted by "group:name:{tags}", with their values to 3 decimals.
//
// Kafka 0.11: org.apache.kafka.tools.ToolsUtils.printMetrics.
func PrintMetrics(w io.Writer, ms []*metrics.KafkaMetric) {
	if len(ms) == 0 {
		return
	}
	type row struct {
		name  string
		value float64
	}
	rows := make([]row, 0, len(ms))
	width := 0
	for _, m := range ms {
		n := m.MetricName()
		merged := n.Group + ":" + n.Name + ":" + n.TagsString()
		width = max(width, len(merged))
		rows = append(rows, row{merged, m.Value()})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
	fmt.Fprintf(w, "\n%-*s   %s\n", width, "Metric Name", "Value")
	for _, r := range rows {
		v := fmt.Sprintf("%.3f", r.value)
		if math.IsNaN(r.value) || math.IsInf(r.value, 0) {
			v = javaF(r.value)
		}
		fmt.Fprintf(w, "%-*s : %s\n", width, r.name, v)
	}
}
