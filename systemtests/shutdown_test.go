package systemtests

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/common"
)

var recoveryLine = regexp.MustCompile(`Recovering unflushed segment`)

// Issue 5 acceptance: a clean shutdown (SIGTERM) leaves .kafka_cleanshutdown in every log dir and
// the restart recovers nothing; SIGKILL during acks=1 production restarts with recovery, and no
// acknowledged message is lost (acks=1 data reached the file, the page cache, before the ack).
func TestShutdownAndRecovery(t *testing.T) {
	CaptureSaramaLog(t, 200)
	c := newCluster(t, ClusterConfig{Brokers: 1, LogDirs: 2})
	b := c.Brokers[0]
	ctx := within(t, 5*time.Minute)
	t0 := time.Now()
	step := func(what string) { t.Logf("%6.1fs %s", time.Since(t0).Seconds(), what) }
	const topic = "shutdown"
	assignment := map[int32][]int32{0: {0}, 1: {0}, 2: {0}, 3: {0}}
	if err := c.CreateTopic(ctx, topic, assignment); err != nil {
		t.Fatal(err)
	}
	cfg, err := SaramaConfig(sarama.V0_10_2_0, "gzip")
	if err != nil {
		t.Fatal(err)
	}
	checker := NewChecker()
	ack := func(i int, p int32, off int64) {
		k, v := MessageFor(i, 100)
		checker.Acked(common.TopicPartition{Topic: topic, Partition: p}, off, k, v)
	}
	const first = 20_000
	for i := 0; i < first; i++ {
		k, v := MessageFor(i, 100)
		checker.Sent(k, v)
	}
	if err := SaramaProduce(ctx, c.BootstrapServers(), cfg, ProduceSpec{Topic: topic, Partitions: 4, Count: first, Size: 100, OnAck: ack}); err != nil {
		t.Fatal(err)
	}

	step("produced")
	// Clean shutdown.
	if err := b.Stop(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	if code := b.ExitCode(); code != 0 {
		t.Fatalf("clean shutdown exited with %d", code)
	}
	for _, dir := range b.LogDirs {
		if _, err := os.Stat(filepath.Join(dir, ".kafka_cleanshutdown")); err != nil {
			t.Errorf("log dir %s: %v", dir, err)
		}
	}
	step("stopped cleanly")
	if err := c.WaitUnregistered(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitRegistered(ctx, b); err != nil {
		t.Fatal(err)
	}
	if lines := b.Logs().Matches(recoveryLine); len(lines) > 0 {
		t.Errorf("restart after a clean shutdown recovered a segment: %q", lines[0])
	}
	if err := c.WaitElected(ctx, topic, assignment); err != nil {
		t.Fatal(err)
	}

	step("restarted and re-elected")
	// SIGKILL in the middle of acks=1 production. The producer gives up quickly once the broker
	// is gone (sarama would otherwise retry metadata for every buffered batch).
	failFast, err := SaramaConfig(sarama.V0_10_2_0, "gzip")
	if err != nil {
		t.Fatal(err)
	}
	failFast.Metadata.Retry.Max = 0
	failFast.Metadata.Retry.Backoff = 10 * time.Millisecond
	failFast.Net.DialTimeout = time.Second
	var acked atomic.Int64
	prodCtx, stopProducing := context.WithCancel(ctx)
	defer stopProducing()
	prodDone := make(chan error, 1)
	go func() {
		spec := ProduceSpec{Topic: topic, Partitions: 4, First: first, Count: 10_000_000, Size: 100, OnAck: func(i int, p int32, off int64) {
			ack(i, p, off)
			acked.Add(1)
		}}
		prodDone <- saramaProduceUntilFailure(prodCtx, c.BootstrapServers(), failFast, spec, checker)
	}()
	for acked.Load() < 30_000 {
		select {
		case err := <-prodDone:
			t.Fatalf("producer stopped before the kill: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	step("acks seen, killing")
	if err := b.Kill(); err != nil {
		t.Fatal(err)
	}
	err = <-prodDone
	t.Logf("producer after SIGKILL: %v (%d acknowledged in this phase)", err, acked.Load())
	stopProducing()
	step("producer stopped")
	if err := c.WaitUnregistered(ctx, b.ID); err != nil { // the dead broker's session must expire first
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitRegistered(ctx, b); err != nil {
		t.Fatal(err)
	}
	step("restarted after kill")
	if _, err := b.Logs().Expect(recoveryLine, time.Minute); err != nil {
		t.Errorf("restart after SIGKILL did not recover: %v", err)
	}
	if err := c.WaitElected(ctx, topic, assignment); err != nil {
		t.Fatal(err)
	}
	step("re-elected")
	checkAllAcked(ctx, t, c, cfg, topic, 4, checker)
}

// saramaProduceUntilFailure sends spec's messages until the context ends or the producer fails
// (the broker was killed), recording every attempt with the checker before it is sent.
func saramaProduceUntilFailure(ctx context.Context, addrs []string, cfg *sarama.Config, spec ProduceSpec, checker *Checker) error {
	p, err := sarama.NewAsyncProducer(addrs, cfg)
	if err != nil {
		return err
	}
	failed := make(chan error, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		succ, errs := p.Successes(), p.Errors()
		for succ != nil || errs != nil {
			select {
			case m, ok := <-succ:
				if !ok {
					succ = nil
					continue
				}
				spec.OnAck(m.Metadata.(int), m.Partition, m.Offset)
			case e, ok := <-errs:
				if !ok {
					errs = nil
					continue
				}
				select {
				case failed <- e.Err:
				default:
				}
			}
		}
	}()
	var result error
loop:
	for i := spec.First; i < spec.First+spec.Count; i++ {
		k, v := MessageFor(i, spec.Size)
		checker.Sent(k, v)
		m := &sarama.ProducerMessage{Topic: spec.Topic, Partition: int32(i % spec.Partitions), Key: sarama.ByteEncoder(k), Value: sarama.ByteEncoder(v), Metadata: i}
		select {
		case p.Input() <- m:
		case result = <-failed:
			break loop
		case <-ctx.Done():
			result = ctx.Err()
			break loop
		}
	}
	p.AsyncClose()
	<-drained
	return result
}
