package verifiable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/producer"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/tools/commandline"
)

func argParser() *commandline.ArgumentParser {
	p := commandline.NewArgumentParser("verifiable-producer",
		`This tool produces increasing integers to the specified topic and prints JSON metadata to stdout on each "send" request, making externally visible which messages have been acked and which have not.`)
	p.AddArgument("--topic").Required().Metavar("TOPIC").Help("Produce messages to this topic.")
	p.AddArgument("--broker-list").Required().Metavar("HOST1:PORT1[,HOST2:PORT2[...]]").Dest("brokerList").
		Help("Comma-separated list of Kafka brokers in the form HOST1:PORT1,HOST2:PORT2,...")
	p.AddArgument("--max-messages").Default("-1").Type("Integer").Metavar("MAX-MESSAGES").Dest("maxMessages").
		Help("Produce this many messages. If -1, produce messages until the process is killed externally.")
	p.AddArgument("--throughput").Default("-1").Type("Integer").Metavar("THROUGHPUT").
		Help("If set >= 0, throttle maximum message throughput to *approximately* THROUGHPUT messages/sec.")
	p.AddArgument("--acks").Default("-1").Type("Integer").Choices("0", "1", "-1").Metavar("ACKS").
		Help("Acks required on each produced message. See Kafka docs on request.required.acks for details.")
	p.AddArgument("--producer.config").Metavar("CONFIG_FILE").Help("Producer config properties file.")
	p.AddArgument("--value-prefix").Type("Integer").Metavar("VALUE-PREFIX").Dest("valuePrefix").
		Help("If specified, each produced value will have this prefix with a dot separator")
	return p
}

// VerifiableProducer sends increasing integers and reports every outcome as JSON.
//
// Kafka 0.10.2: org.apache.kafka.tools.VerifiableProducer.
type VerifiableProducer struct {
	producer    *producer.KafkaProducer[*string, string]
	topic       string
	throughput  int64
	maxMessages int64
	valuePrefix *int32
	out         io.Writer
	mu          sync.Mutex // one JSON line at a time (callbacks run on the producer's goroutine)
	numAcked    int64
	numSent     int64
}

// Run is kafka-verifiable-producer; ctx ending (SIGINT/SIGTERM) stops it as the JVM's shutdown
// hook does. It returns the exit code.
//
// Kafka 0.10.2: VerifiableProducer.main and createFromArgs.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	parser := argParser()
	ns, code, ok := parser.RunParse(args, stdout, stderr)
	if !ok {
		return code
	}
	props := map[string]string{
		producer.BootstrapServersConfig:     ns.String("brokerList"),
		producer.KeySerializerClassConfig:   "org.apache.kafka.common.serialization.StringSerializer",
		producer.ValueSerializerClassConfig: "org.apache.kafka.common.serialization.StringSerializer",
		producer.AcksConfig:                 strconv.Itoa(int(ns.Int("acks"))),
		producer.RetriesConfig:              "0", // no producer retries
	}
	if f := ns.String("producer.config"); f != "" {
		loaded, err := config.LoadProps(f)
		if err != nil {
			parser.HandleError(stderr, &commandline.ArgumentParserError{Parser: parser, Message: err.Error()})
			return 1
		}
		for k, v := range loaded {
			props[k] = v
		}
	}
	p, err := producer.NewKafkaProducerWith[*string, string](props, nil, nil, producer.ProducerOptions[*string, string]{
		Log: commandline.ToolsLogger(stderr, "org.apache.kafka.clients.producer.KafkaProducer")})
	if err != nil {
		class := "org.apache.kafka.common.KafkaException"
		var ce *config.ConfigException
		if errors.As(err, &ce) && err == error(ce) {
			class = "org.apache.kafka.common.config.ConfigException"
		}
		fmt.Fprintf(stderr, "Exception in thread \"main\" %s: %v\n", class, err)
		return 1
	}
	vp := &VerifiableProducer{producer: p, topic: ns.String("topic"), throughput: int64(ns.Int("throughput")),
		maxMessages: int64(ns.Int("maxMessages")), out: stdout}
	if ns.Has("valuePrefix") {
		v := ns.Int("valuePrefix")
		vp.valuePrefix = &v
	}
	vp.run(ctx)
	return 0
}

func (vp *VerifiableProducer) run(ctx context.Context) {
	startMs := time.Now().UnixMilli()
	throttler := commandline.NewThroughputThrottler(ctx, vp.throughput, startMs)
	maxMessages := vp.maxMessages
	if maxMessages < 0 {
		maxMessages = math.MaxInt64
	}
	for i := int64(0); i < maxMessages && ctx.Err() == nil; i++ {
		sendStartMs := time.Now().UnixMilli()
		vp.send(nil, vp.value(i))
		if throttler.ShouldThrottle(i, sendStartMs) {
			throttler.Throttle()
		}
	}
	// The shutdown hook: close (sending what is buffered), then the summary.
	vp.close()
	stopMs := time.Now().UnixMilli()
	vp.mu.Lock()
	defer vp.mu.Unlock()
	avg := 1000 * (float64(vp.numAcked) / float64(stopMs-startMs))
	vp.println(jsonObject{{"avg_throughput", javaDouble(avg)}, {"target_throughput", vp.throughput}, {"name", "tool_data"},
		{"sent", vp.numSent}, {"acked", vp.numAcked}})
}

// value is "<n>" or "<prefix>.<n>".
func (vp *VerifiableProducer) value(n int64) string {
	if vp.valuePrefix != nil {
		return fmt.Sprintf("%d.%d", *vp.valuePrefix, n)
	}
	return strconv.FormatInt(n, 10)
}

// send sends one record; its outcome is printed by its callback, or at once when Send fails.
func (vp *VerifiableProducer) send(key *string, value string) {
	vp.mu.Lock()
	vp.numSent++
	vp.mu.Unlock()
	_, err := vp.producer.Send(producer.NewProducerRecord(vp.topic, key, value), func(md *producer.RecordMetadata, err error) {
		vp.mu.Lock()
		defer vp.mu.Unlock()
		if err != nil {
			vp.println(vp.errorObject(err, key, value))
			return
		}
		vp.numAcked++
		vp.println(jsonObject{{"partition", md.Partition}, {"offset", md.Offset}, {"time_ms", time.Now().UnixMilli()},
			{"name", "producer_send_success"}, {"topic", vp.topic}, {"value", value}, {"key", key}})
	})
	if err != nil {
		vp.mu.Lock()
		vp.println(vp.errorObject(err, key, value))
		vp.mu.Unlock()
	}
}

func (vp *VerifiableProducer) errorObject(err error, key *string, value string) jsonObject {
	class := protocol.ExceptionName(err)
	if class == "" {
		class = "org.apache.kafka.common.KafkaException"
		if errors.Is(err, producer.ErrProducerClosed) {
			class = "java.lang.IllegalStateException"
		}
	}
	return jsonObject{{"exception", "class " + class}, {"time_ms", time.Now().UnixMilli()}, {"name", "producer_send_error"},
		{"topic", vp.topic}, {"message", protocol.ExceptionMessage(err)}, {"value", value}, {"key", key}}
}

func (vp *VerifiableProducer) close() {
	vp.producer.Close(math.MaxInt64) //nolint:errcheck
	vp.mu.Lock()
	vp.println(jsonObject{{"name", "shutdown_complete"}})
	vp.mu.Unlock()
}

// println writes one JSON line (caller holds mu).
func (vp *VerifiableProducer) println(o jsonObject) {
	fmt.Fprintln(vp.out, o.String())
}

// jsonObject is a JSON object with its keys in a fixed order.
type jsonObject []struct {
	k string
	v any
}

// javaDouble is a double rendered as Java's Double.toString (and so Jackson) does.
type javaDouble float64

func (o jsonObject) String() string {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSON(&b, f.k)
		b.WriteByte(':')
		if d, ok := f.v.(javaDouble); ok {
			b.WriteString(formatJavaDouble(float64(d)))
			continue
		}
		writeJSON(&b, f.v)
	}
	b.WriteByte('}')
	return b.String()
}

func writeJSON(b *bytes.Buffer, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	b.Truncate(b.Len() - 1) // Encode's newline
}

// formatJavaDouble is Double.toString: "NaN", "Infinity", scientific below 1e-3 and from 1e7,
// else the shortest decimal with at least one digit after the point.
func formatJavaDouble(v float64) string {
	switch {
	case math.IsNaN(v):
		return `"NaN"`
	case math.IsInf(v, 1):
		return `"Infinity"`
	case math.IsInf(v, -1):
		return `"-Infinity"`
	}
	a := math.Abs(v)
	if a != 0 && (a < 1e-3 || a >= 1e7) {
		s := strconv.FormatFloat(v, 'E', -1, 64)
		mant, exp, _ := strings.Cut(s, "E")
		if !strings.Contains(mant, ".") {
			mant += ".0"
		}
		e, _ := strconv.Atoi(exp)
		return mant + "E" + strconv.Itoa(e)
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
