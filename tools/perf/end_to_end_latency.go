package perf

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/consumer"
	"github.com/zkafka/zkafka/clients/producer"
	"github.com/zkafka/zkafka/tools/commandline"
)

// endToEndPollTimeout is how long EndToEndLatency waits for each message to come back.
const endToEndPollTimeout = 60 * time.Second

// EndToEndLatency is `kafka-run-class.sh kafka.tools.EndToEndLatency broker_list topic
// num_messages producer_acks message_size_bytes [properties_file]`: it sends one message at a
// time (random uppercase letters, java.util.Random(0)), waits for its acknowledgement, polls it
// back with a consumer subscribed at the end of the topic, prints "i<TAB>ms" every 1000 messages,
// then the average latency and the 50th, 99th and 99.9th percentiles in ms.
//
// Kafka 0.10.2: kafka.tools.EndToEndLatency.
func EndToEndLatency(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) != 5 && len(args) != 6 {
		fmt.Fprintln(stderr, "USAGE: java kafka.tools.EndToEndLatency$ broker_list topic num_messages producer_acks message_size_bytes [optional] properties_file")
		return 1
	}
	brokerList, topic := args[0], args[1]
	numMessages, err := strconv.Atoi(args[2])
	if err != nil {
		return uncaught(stderr, "java.lang.NumberFormatException", fmt.Sprintf("For input string: \"%s\"", args[2]))
	}
	if numMessages <= 0 {
		return uncaught(stderr, "java.lang.ArrayIndexOutOfBoundsException", "0")
	}
	acks := args[3]
	messageLen, err := strconv.Atoi(args[4])
	if err != nil {
		return uncaught(stderr, "java.lang.NumberFormatException", fmt.Sprintf("For input string: \"%s\"", args[4]))
	}
	if acks != "1" && acks != "all" {
		return uncaught(stderr, "java.lang.IllegalArgumentException", "Latency testing requires synchronous acknowledgement. Please use 1 or all")
	}
	loadProps := func() (map[string]string, error) {
		if len(args) > 5 && args[5] != "" {
			return config.LoadProps(args[5])
		}
		return map[string]string{}, nil
	}
	cprops, err := loadProps()
	if err != nil {
		return uncaught(stderr, "java.io.IOException", err.Error())
	}
	cprops[consumer.BootstrapServersConfig] = brokerList
	cprops[consumer.GroupIDConfig] = fmt.Sprintf("test-group-%d", time.Now().UnixMilli())
	cprops[consumer.EnableAutoCommitConfig] = "false"
	cprops[consumer.AutoOffsetResetConfig] = "latest"
	cprops[consumer.KeyDeserializerClassConfig] = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
	cprops[consumer.ValueDeserializerClassConfig] = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
	cprops[consumer.FetchMaxWaitMsConfig] = "0"
	c, err := consumer.NewKafkaConsumerWith[[]byte, []byte](cprops, nil, nil, consumer.ConsumerOptions[[]byte, []byte]{
		Log: commandline.ToolsLogger(stderr, "org.apache.kafka.clients.consumer.KafkaConsumer")})
	if err != nil {
		return constructionFailure(stderr, err)
	}
	stop := context.AfterFunc(ctx, c.Wakeup)
	defer stop()
	if err := c.Subscribe([]string{topic}, nil); err != nil {
		_ = c.Close(0)
		return uncaught(stderr, "java.lang.IllegalStateException", err.Error())
	}
	pprops, err := loadProps()
	if err != nil {
		return uncaught(stderr, "java.io.IOException", err.Error())
	}
	pprops[producer.BootstrapServersConfig] = brokerList
	pprops[producer.LingerMsConfig] = "0"
	pprops[producer.MaxBlockMsConfig] = strconv.FormatInt(math.MaxInt64, 10)
	pprops[producer.AcksConfig] = acks
	pprops[producer.KeySerializerClassConfig] = "org.apache.kafka.common.serialization.ByteArraySerializer"
	pprops[producer.ValueSerializerClassConfig] = "org.apache.kafka.common.serialization.ByteArraySerializer"
	p, err := producer.NewKafkaProducerWith[[]byte, []byte](pprops, nil, nil, producer.ProducerOptions[[]byte, []byte]{
		Log: commandline.ToolsLogger(stderr, "org.apache.kafka.clients.producer.KafkaProducer")})
	if err != nil {
		_ = c.Close(0)
		return constructionFailure(stderr, err)
	}
	finalise := func() {
		_ = c.CommitSync(nil)
		_ = p.Close(math.MaxInt64)
		_ = c.Close(30 * time.Second)
	}
	// The seek to the end happens on the next poll or position: poll once so that the first
	// message sent is seen.
	if err := c.SeekToEnd(nil); err != nil {
		finalise()
		return uncaught(stderr, "java.lang.IllegalStateException", err.Error())
	}
	if _, err := c.Poll(0); err != nil {
		finalise()
		return uncaught(stderr, "org.apache.kafka.common.KafkaException", err.Error())
	}
	var totalTime float64
	latencies := make([]int64, numMessages)
	random := newJavaRandom(0)
	for i := 0; i < numMessages; i++ {
		message := make([]byte, messageLen)
		for j := range message {
			message[j] = byte(random.nextInt(26) + 65)
		}
		begin := time.Now()
		fut, err := p.Send(producer.ProducerRecord[[]byte, []byte]{Topic: topic, Value: message}, nil)
		if err == nil {
			_, err = fut.Get(ctx)
		}
		if err != nil {
			finalise()
			return uncaught(stderr, "java.util.concurrent.ExecutionException", err.Error())
		}
		recs, err := c.Poll(endToEndPollTimeout)
		elapsed := time.Since(begin)
		if err != nil {
			finalise()
			return uncaught(stderr, "org.apache.kafka.common.KafkaException", err.Error())
		}
		all := recs.All()
		if len(all) == 0 {
			finalise()
			return uncaught(stderr, "java.lang.RuntimeException", fmt.Sprintf("poll() timed out before finding a result (timeout:[%d])", endToEndPollTimeout.Milliseconds()))
		}
		if read, sent := string(all[0].Value), string(message); read != sent {
			finalise()
			return uncaught(stderr, "java.lang.RuntimeException", fmt.Sprintf("The message read [%s] did not match the message sent [%s]", read, sent))
		}
		if len(all) > 1 {
			return uncaught(stderr, "java.lang.RuntimeException", fmt.Sprintf("Only one result was expected during this test. We found [%d]", len(all)))
		}
		if i%1000 == 0 {
			fmt.Fprintf(stdout, "%d\t%s\n", i, javaDoubleString(float64(elapsed.Nanoseconds())/1000.0/1000.0))
		}
		totalTime += float64(elapsed.Nanoseconds())
		latencies[i] = elapsed.Nanoseconds() / 1000 / 1000
	}
	fmt.Fprintf(stdout, "Avg latency: %.4f ms\n\n", totalTime/float64(numMessages)/1000.0/1000.0)
	sort.Slice(latencies, func(a, b int) bool { return latencies[a] < latencies[b] })
	n := float64(len(latencies))
	fmt.Fprintf(stdout, "Percentiles: 50th = %d, 99th = %d, 99.9th = %d\n", latencies[int(n*0.5)], latencies[int(n*0.99)], latencies[int(n*0.999)])
	finalise()
	return 0
}

// javaDoubleString is Double.toString for the plain range EndToEndLatency prints (ms values).
func javaDoubleString(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	for _, ch := range s {
		if ch == '.' {
			return s
		}
	}
	return s + ".0"
}
