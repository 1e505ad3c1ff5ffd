package server

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/zk/zktest"
)

// TestFollowerCatchesUpUnderSaramaLoad: sarama produces as fast as it can with acks=1 to a
// leader with one follower; the follower's lag behind the leader's LEO is sampled throughout,
// and once the producer stops the follower must reach the leader's LEO within 500 ms. A second
// run with acks=all checks that every acknowledged message was on the follower already.
func TestFollowerCatchesUpUnderSaramaLoad(t *testing.T) {
	c := newReplicationCluster(t, 2, nil)
	tp := tpOf("load", 0)
	s := partitionState{topic: "load", partition: 0, leader: 0, leaderEpoch: 0, isr: []int32{0, 1}, replicas: []int32{0, 1}}
	c.elect(&s)
	addr := fmt.Sprintf("127.0.0.1:%d", c.ports[0])

	run := func(acks sarama.RequiredAcks, d time.Duration) (sent int, maxLag int64) {
		cfg := sarama.NewConfig()
		cfg.Version = sarama.V0_10_2_0
		cfg.Producer.RequiredAcks = acks
		cfg.Producer.Return.Successes = true
		cfg.Producer.Partitioner = sarama.NewManualPartitioner
		cfg.Producer.Flush.Frequency = time.Millisecond
		cfg.Producer.Flush.Messages = 200
		prod, err := sarama.NewAsyncProducer([]string{addr}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(2)
		var errs int
		go func() {
			defer wg.Done()
			for range prod.Successes() {
			}
		}()
		go func() {
			defer wg.Done()
			for range prod.Errors() {
				errs++
			}
		}()
		stopSampling := make(chan struct{})
		sampled := make(chan int64)
		go func() {
			var m int64
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stopSampling:
					sampled <- m
					return
				case <-tick.C:
					leo0, _ := c.replica(0, tp)
					leo1, _ := c.replica(1, tp)
					m = max(m, leo0-leo1)
				}
			}
		}()
		value := sarama.ByteEncoder(make([]byte, 100))
		deadline := time.Now().Add(d)
		for time.Now().Before(deadline) {
			prod.Input() <- &sarama.ProducerMessage{Topic: "load", Partition: 0, Value: value}
			sent++
		}
		prod.AsyncClose()
		wg.Wait()
		close(stopSampling)
		maxLag = <-sampled
		if errs > 0 {
			t.Fatalf("%d produce errors with acks=%d", errs, acks)
		}
		return sent, maxLag
	}

	start := time.Now()
	sent, maxLag := run(sarama.WaitForLocal, time.Second)
	stopped := time.Now()
	leo0, _ := c.replica(0, tp)
	zktest.WaitUntilTrue(t, func() bool {
		leo1, _ := c.replica(1, tp)
		return leo1 == leo0
	}, "follower at the leader's LEO after the load", 500*time.Millisecond)
	t.Logf("acks=1: %d messages in %s (%.0f msg/s); follower lag at most %d messages; caught up %s after the last ack",
		sent, stopped.Sub(start), float64(sent)/stopped.Sub(start).Seconds(), maxLag, time.Since(stopped))

	start = time.Now()
	sent, maxLag = run(sarama.WaitForAll, time.Second)
	stopped = time.Now()
	leo0, hw0 := c.replica(0, tp)
	leo1, _ := c.replica(1, tp)
	if hw0 != leo0 || leo1 < hw0 {
		t.Fatalf("after acks=all: leader LEO %d HW %d, follower LEO %d", leo0, hw0, leo1)
	}
	t.Logf("acks=all: %d messages in %s (%.0f msg/s); follower lag at most %d messages",
		sent, stopped.Sub(start), float64(sent)/stopped.Sub(start).Seconds(), maxLag)
}

// BenchmarkReplicatedProduceAcksAll: produce requests of 100 messages of 100 bytes with
// acks=-1 to a leader with one follower (each completes when the follower has fetched it).
func BenchmarkReplicatedProduceAcksAll(b *testing.B) {
	c := newReplicationCluster(b, 2, nil)
	tp := tpOf("bench", 0)
	s := partitionState{topic: "bench", partition: 0, leader: 0, leaderEpoch: 0, isr: []int32{0, 1}, replicas: []int32{0, 1}}
	c.elect(&s)
	code, _ := c.produce(0, tp, -1, 100)
	if code != 0 {
		b.Fatalf("produce: %d", code)
	}
	b.SetBytes(100 * 100)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if code, _ := c.produce(0, tp, -1, 100); code != 0 {
			b.Fatalf("produce: %d", code)
		}
	}
}
