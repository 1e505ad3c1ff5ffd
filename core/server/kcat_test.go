package server

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/zk/zktest"
)

// TestKcatBalancedConsumer: two kcat -G members (librdkafka's consumer group client) share a
// topic through this broker's coordinator, consume everything between them, and commit it.
// Skipped when kcat is not installed.
func TestKcatBalancedConsumer(t *testing.T) {
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat not installed")
	}
	connect := zktest.Chroot(t)
	loggers, _ := testLoggers(t)
	extra := map[string]string{"offsets.topic.num.partitions": "1", "offsets.topic.replication.factor": "1"}
	srv := NewKafkaServer(brokerConfig(t, connect, t.TempDir(), extra), nil, loggers, func(string) string { return "" })
	if err := srv.Startup(); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	port := srv.BoundPort("PLAINTEXT")
	ctl := dialRaw(t, port)
	ctl.roundTrip(t, &protocol.GroupCoordinatorRequest{GroupID: "kc"}) // creates __consumer_offsets
	const topic = "kcat"
	if err := admin.NewAdminUtils(srv.ZkUtils(), nil, nil).CreateTopic(topic, 4, 1, nil, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	waitForLeaders(t, ctl, GroupMetadataTopicName, 1)
	waitForLeaders(t, ctl, topic, 4)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.Producer.Return.Successes = true
	cfg.Producer.Partitioner = sarama.NewRoundRobinPartitioner
	prod, err := sarama.NewSyncProducer([]string{addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	for i := 0; i < n; i++ {
		if _, _, err := prod.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder(fmt.Sprint(i))}); err != nil {
			t.Fatal(err)
		}
	}
	_ = prod.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	outs := make([]bytes.Buffer, 2)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.CommandContext(ctx, kcat, "-b", addr, "-G", "kc", "-X", "auto.offset.reset=earliest",
				"-X", "api.version.request=true", "-X", "session.timeout.ms=6000", "-X", "auto.commit.interval.ms=100",
				"-q", "-f", "%s\n", topic)
			cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) } // kcat flushes and leaves the group
			cmd.WaitDelay = 10 * time.Second
			cmd.Stdout = &outs[i]
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			_ = cmd.Run()
			if stderr.Len() > 0 {
				t.Logf("kcat %d stderr: %s", i, stderr.String())
			}
		}(i)
	}
	// Both members in one Stable generation, each with 2 partitions.
	zktest.WaitUntilTrue(t, func() bool {
		code, s := srv.Coordinator.HandleDescribeGroup("kc")
		if code != 0 || s.State != "Stable" || len(s.Members) != 2 {
			return false
		}
		for _, m := range s.Members {
			var a protocol.ConsumerProtocolAssignment
			if a.ReadFrom(m.Assignment) != nil || len(a.Partitions) != 2 {
				return false
			}
		}
		return true
	}, "two kcat members splitting 4 partitions", 30*time.Second)
	zktest.WaitUntilTrue(t, func() bool {
		code, offsets := srv.Coordinator.HandleFetchOffsets("kc", nil)
		var sum int64
		for _, o := range offsets {
			sum += o.Offset
		}
		return code == 0 && len(offsets) == 4 && sum == n
	}, "everything committed", 30*time.Second)
	cancel()
	wg.Wait()
	// Both members left the group on their way out.
	if code, s := srv.Coordinator.HandleDescribeGroup("kc"); code != 0 || s.State != "Empty" {
		t.Errorf("after kcat exited: %d %+v", code, s)
	}
	for i := range outs {
		mu.Lock()
		for _, l := range strings.Fields(outs[i].String()) {
			seen[l] = true
		}
		mu.Unlock()
	}
	if len(seen) != n {
		t.Fatalf("kcat members consumed %d distinct messages, want %d", len(seen), n)
	}
}
