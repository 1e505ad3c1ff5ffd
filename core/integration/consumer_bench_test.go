package integration

import (
	"bytes"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/IBM/sarama"
)

// TestConsumerThroughputFigures logs the records/s of the three consumers on the same data (run
// with -run TestConsumerThroughputFigures -v; it asserts only that each read everything).
func TestConsumerThroughputFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("throughput figures")
	}
	const n, parts = 100_000, 4
	br := startTestBroker(t, nil)
	br.createTopic(t, "bench", parts, nil)
	value := bytes.Repeat([]byte("x"), 100)
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.Producer.Return.Successes = true
	cfg.Producer.Flush.Messages = 1000
	cfg.Producer.Flush.Frequency = 10 * time.Millisecond
	sp, err := sarama.NewAsyncProducer([]string{br.addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for i := 0; i < n; i++ {
			sp.Input() <- &sarama.ProducerMessage{Topic: "bench", Value: sarama.ByteEncoder(value)}
		}
	}()
	for i := 0; i < n; i++ {
		select {
		case <-sp.Successes():
		case err := <-sp.Errors():
			t.Fatal(err)
		}
	}
	sp.Close()
	rate := func(name string, read func() int) float64 {
		start := time.Now()
		got := read()
		el := time.Since(start)
		if got < n {
			t.Fatalf("%s read %d of %d", name, got, n)
		}
		r := float64(n) / el.Seconds()
		t.Logf("%s: %d records in %v: %.0f records/s", name, n, el.Round(time.Millisecond), r)
		return r
	}
	zk := rate("zkafka KafkaConsumer", func() int {
		c := newTestConsumer(t, br.addr, "auto.offset.reset", "earliest", "enable.auto.commit", "false")
		if err := c.Assign(tpsOf("bench", parts)); err != nil {
			t.Fatal(err)
		}
		got := 0
		for got < n {
			recs, err := c.Poll(time.Second)
			if err != nil {
				t.Fatal(err)
			}
			got += recs.Count()
		}
		return got
	})
	sr := rate("sarama Consumer", func() int {
		scfg := sarama.NewConfig()
		scfg.Version = sarama.V0_10_2_0
		sc, err := sarama.NewConsumer([]string{br.addr}, scfg)
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		done := make(chan int, parts)
		for p := int32(0); p < parts; p++ {
			pc, err := sc.ConsumePartition("bench", p, sarama.OffsetOldest)
			if err != nil {
				t.Fatal(err)
			}
			hw := pc.HighWaterMarkOffset()
			go func() {
				k := 0
				for m := range pc.Messages() {
					k++
					if m.Offset+1 >= hw {
						break
					}
				}
				pc.AsyncClose()
				done <- k
			}()
		}
		got := 0
		for p := 0; p < parts; p++ {
			got += <-done
		}
		return got
	})
	var kc float64
	if _, err := exec.LookPath("kcat"); err == nil {
		kc = rate("kcat", func() int {
			out, err := exec.Command("kcat", "-C", "-b", br.addr, "-t", "bench", "-o", "beginning", "-e", "-q", "-f", "\n").Output()
			if err != nil {
				t.Fatal(err)
			}
			return bytes.Count(out, []byte("\n"))
		})
	}
	t.Logf("ratios: zkafka/sarama %.2f, zkafka/kcat %s", zk/sr, func() string {
		if kc == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.2f", zk/kc)
	}())
}
