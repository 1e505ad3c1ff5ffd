package systemtests

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/oldconsumer"
)

// describedOffsets sums the CURRENT-OFFSET and LAG columns kafka-consumer-groups --describe
// prints for topic's partitions 0..n-1 (-1 when a partition is missing).
func describedOffsets(out, topic string, n int) (current, lag int64) {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(topic) + `\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)`)
	seen := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		seen[m[1]] = true
		c, _ := strconv.ParseInt(m[2], 10, 64)
		l, _ := strconv.ParseInt(m[4], 10, 64)
		current += c
		lag += l
	}
	if len(seen) != n {
		return -1, -1
	}
	return current, lag
}

// An old-consumer group (ZookeeperConsumerConnector, offsets in ZooKeeper) and a new-consumer
// group read the same topic independently: each gets every message, the old group's offsets are
// in /consumers/<group>/offsets and the new group's in __consumer_offsets (no znode), and
// kafka-consumer-groups shows each through its own path (--zookeeper, --bootstrap-server) and
// not through the other. Two new-consumer groups: sarama's ConsumerGroup (another client's view
// of 0.10.2's group protocol) and zkafka's KafkaConsumer through kafka-console-consumer.sh.
func TestOldAndNewConsumerGroupsReadIndependently(t *testing.T) {
	const (
		topic = "shared"
		parts = 2
		total = 200
	)
	c := newCluster(t, ClusterConfig{Brokers: 1, Properties: map[string]string{"offsets.topic.num.partitions": "1"}})
	ctx := within(t, 3*time.Minute)
	if err := c.CreateTopic(ctx, topic, map[int32][]int32{0: {0}, 1: {0}}); err != nil {
		t.Fatal(err)
	}
	cfg, err := SaramaConfig(sarama.V0_10_2_0, "none")
	if err != nil {
		t.Fatal(err)
	}
	if err := SaramaProduce(ctx, c.BootstrapServers(), cfg, ProduceSpec{Topic: topic, Partitions: parts, Count: total, Size: 50}); err != nil {
		t.Fatal(err)
	}

	// The old group: one connector, consuming everything, then committing to ZooKeeper.
	occ, err := oldconsumer.NewConsumerConfig(map[string]string{"zookeeper.connect": c.ZkConnect(), "group.id": "old-g",
		"consumer.id": "o1", "auto.offset.reset": "smallest", "auto.commit.enable": "false"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := oldconsumer.NewZookeeperConsumerConnector(ctx, occ, oldconsumer.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Shutdown()
	streams, err := conn.CreateMessageStreams(map[string]int{topic: 1})
	if err != nil {
		t.Fatal(err)
	}
	oldSeen := map[string]bool{}
	it := streams[topic][0].Iterator()
	for len(oldSeen) < total {
		m, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		oldSeen[string(m.Key())] = true
	}
	if err := conn.CommitOffsets(); err != nil {
		t.Fatal(err)
	}

	// The new group: a sarama ConsumerGroup member, committing to the group coordinator.
	var mu sync.Mutex
	newSeen := map[string]bool{}
	member, err := startMember(c.BootstrapServers(), cgConfig(200*time.Millisecond), "new-g", topic, &cgHandler{
		assigned: func(int32, []int32) {},
		message: func(m *sarama.ConsumerMessage) {
			mu.Lock()
			newSeen[string(m.Key)] = true
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	if err := WaitFor(within(t, 90*time.Second), func() string { return "the new group reads every message" }, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(newSeen) == total
	}); err != nil {
		t.Fatal(err)
	}

	s := scripts{t: t, dir: scriptsDir(t), zk: c.ZkConnect()}
	bootstrap := strings.Join(c.BootstrapServers(), ",")
	// The new group's offsets reach __consumer_offsets (auto commit every 200 ms).
	if err := WaitFor(within(t, 60*time.Second), func() string { return "new-g's committed offsets at the end" }, func() bool {
		out, err := s.try(ctx, "kafka-consumer-groups.sh", "--bootstrap-server", bootstrap, "--describe", "--group", "new-g")
		cur, lag := describedOffsets(out, topic, parts)
		return err == nil && cur == total && lag == 0
	}); err != nil {
		t.Fatal(err)
	}
	// A second new-consumer group on zkafka's own KafkaConsumer, through the console consumer:
	// it reads every message too, and its close commits what it consumed (auto commit).
	out := s.run(ctx, "kafka-console-consumer.sh", "--bootstrap-server", bootstrap, "--topic", topic, "--from-beginning",
		"--max-messages", strconv.Itoa(total), "--consumer-property", "group.id=zk-new-g")
	distinct := map[string]bool{}
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		distinct[l] = true
	}
	if len(distinct) != total {
		t.Fatalf("the zkafka new-consumer group printed %d distinct values, want %d", len(distinct), total)
	}
	if err := WaitFor(within(t, 60*time.Second), func() string { return "zk-new-g's committed offsets at the end" }, func() bool {
		out, err := s.try(ctx, "kafka-consumer-groups.sh", "--bootstrap-server", bootstrap, "--describe", "--group", "zk-new-g")
		cur, lag := describedOffsets(out, topic, parts)
		return err == nil && cur == total && lag == 0
	}); err != nil {
		t.Fatal(err)
	}
	out = s.run(ctx, "kafka-consumer-groups.sh", "--zookeeper", s.zk, "--describe", "--group", "old-g")
	if cur, lag := describedOffsets(out, topic, parts); cur != total || lag != 0 || !strings.Contains(out, "old-g_o1") {
		t.Fatalf("old-g described (current %d, lag %d):\n%s", cur, lag, out)
	}
	zkList := s.run(ctx, "kafka-consumer-groups.sh", "--zookeeper", s.zk, "--list")
	newList := s.run(ctx, "kafka-consumer-groups.sh", "--bootstrap-server", bootstrap, "--list")
	has := func(list, g string) bool {
		for _, l := range strings.Split(strings.TrimSpace(list), "\n") {
			if strings.TrimSpace(l) == g {
				return true
			}
		}
		return false
	}
	if !has(zkList, "old-g") || has(zkList, "new-g") || has(zkList, "zk-new-g") ||
		!has(newList, "new-g") || !has(newList, "zk-new-g") || has(newList, "old-g") {
		t.Fatalf("lists: --zookeeper %q, --bootstrap-server %q", zkList, newList)
	}
	zk, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"new-g", "zk-new-g"} {
		if ok, err := zk.PathExists("/consumers/" + g); err != nil || ok {
			t.Fatalf("the new group %s wrote to ZooKeeper: %v %v", g, ok, err)
		}
	}
	for p := 0; p < parts; p++ {
		if ok, err := zk.PathExists("/consumers/old-g/offsets/" + topic + "/" + strconv.Itoa(p)); err != nil || !ok {
			t.Fatalf("old-g's offset of partition %d is not in ZooKeeper: %v", p, err)
		}
	}
	if len(oldSeen) != total {
		t.Fatalf("the old group read %d distinct messages", len(oldSeen))
	}
}
