package oldconsumer

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// consumeN reads n messages from a stream and returns their values.
func consumeN(t *testing.T, s *KafkaStream[[]byte, []byte], n int) []string {
	t.Helper()
	var out []string
	it := s.Iterator()
	for len(out) < n {
		m, err := it.Next()
		if err != nil {
			t.Fatalf("after %d messages: %v", len(out), err)
		}
		out = append(out, string(m.Message()))
	}
	return out
}

// TestZnodeLayoutGolden checks every znode a member writes against the bytes 0.10.2 writes:
//
//   - /consumers/g/ids/g_c1: Json.encode(Map("version" -> 1, "subscription" -> topicCountMap,
//     "pattern" -> "static", "timestamp" -> ms.toString)), no whitespace, timestamp a string,
//     ephemeral;
//   - /consumers/g/owners/t/<p>: ConsumerThreadId.toString, "g_c1-<thread>", ephemeral;
//   - /consumers/g/offsets/t/<p>: offset.toString, persistent.
func TestZnodeLayoutGolden(t *testing.T) {
	connect := zktest.Chroot(t)
	b := startBroker(t, connect, nil)
	b.createTopic(t, "t", 4)
	b.produce(t, "t", 4, 0, 40)

	before := time.Now().UnixMilli()
	reg := metrics.NewRegistry(nil)
	c := newConnector(t, consumerProps(connect, "g", map[string]string{"consumer.id": "c1"}), Deps{Metrics: reg})
	streams, err := c.CreateMessageStreams(map[string]int{"t": 2})
	if err != nil {
		t.Fatal(err)
	}
	zk := b.zk
	data, st, err := zk.ReadData("/consumers/g/ids/g_c1")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`^\{"version":1,"subscription":\{"t":2\},"pattern":"static","timestamp":"(\d+)"\}$`).FindSubmatch(data)
	if m == nil {
		t.Fatalf("registration %s", data)
	}
	var ts int64
	fmt.Sscan(string(m[1]), &ts)
	if ts < before || ts > time.Now().UnixMilli() {
		t.Fatalf("timestamp %d not the registration time", ts)
	}
	if st.EphemeralOwner == 0 {
		t.Fatal("the registration must be ephemeral")
	}
	// Range over the threads g_c1-0, g_c1-1: partitions 0,1 and 2,3.
	for p, want := range []string{"g_c1-0", "g_c1-0", "g_c1-1", "g_c1-1"} {
		data, st, err := zk.ReadData(fmt.Sprintf("/consumers/g/owners/t/%d", p))
		if err != nil || string(data) != want || st.EphemeralOwner == 0 {
			t.Fatalf("owner of partition %d: %q (%v, ephemeral owner %x), want %q", p, data, err, st.EphemeralOwner, want)
		}
	}
	got := append(consumeN(t, streams["t"][0], 20), consumeN(t, streams["t"][1], 20)...)
	if len(got) != 40 {
		t.Fatalf("consumed %d", len(got))
	}
	if err := c.CommitOffsets(); err != nil {
		t.Fatal(err)
	}
	for p := 0; p < 4; p++ {
		data, st, err := zk.ReadData(fmt.Sprintf("/consumers/g/offsets/t/%d", p))
		if err != nil || string(data) != "10" || st.EphemeralOwner != 0 {
			t.Fatalf("offset of partition %d: %q %v", p, data, err)
		}
	}
	// The consumer's metrics under 0.10.2's MBean names.
	if m := reg.Meter("kafka.consumer:type=ConsumerTopicMetrics,name=MessagesPerSec,clientId=g,topic=t"); m == nil || m.Count() != 40 {
		t.Fatalf("MessagesPerSec: %v (names %v)", m, reg.Names())
	}
	if m := reg.Meter("kafka.consumer:type=ZookeeperConsumerConnector,name=ZooKeeperCommitsPerSec,clientId=g"); m == nil || m.Count() != 4 {
		t.Fatalf("ZooKeeperCommitsPerSec: %v", m)
	}
	if v, ok := reg.GaugeValue("kafka.consumer:type=ZKRebalancerListener,name=OwnedPartitionsCount,clientId=g,groupId=g"); !ok || v != 4 {
		t.Fatalf("OwnedPartitionsCount %v %v", v, ok)
	}
	if _, ok := reg.GaugeValue("kafka.consumer:type=ZookeeperConsumerConnector,name=FetchQueueSize,clientId=g,topic=t,threadId=1"); !ok {
		t.Fatalf("FetchQueueSize missing: %v", reg.Names())
	}
	if reg.Get(fmt.Sprintf("kafka.consumer:type=FetchRequestAndResponseMetrics,name=FetchRequestRateAndTimeMs,clientId=g,brokerHost=%s,brokerPort=%d", b.host, b.port)) == nil {
		t.Fatalf("FetchRequestRateAndTimeMs missing: %v", reg.Names())
	}
	c.Shutdown()
	if ids, _ := zk.GetChildrenParentMayNotExist("/consumers/g/ids"); len(ids) != 0 {
		t.Fatalf("registration left after shutdown: %v", ids)
	}
	if owners, _ := zk.GetChildrenParentMayNotExist("/consumers/g/owners/t"); len(owners) != 0 {
		t.Fatalf("owners left after shutdown: %v", owners)
	}
}

// TestWildcardRegistrationAndNewTopic: a whitelist member registers its JSON-escaped regex
// with pattern white_list, consumes every matching topic, and picks up a topic created later.
func TestWildcardRegistrationAndNewTopic(t *testing.T) {
	connect := zktest.Chroot(t)
	b := startBroker(t, connect, nil)
	b.createTopic(t, "w1", 2)
	b.createTopic(t, "other", 1)
	b.produce(t, "w1", 2, 0, 10)
	b.produce(t, "other", 1, 100, 5)
	c := newConnector(t, consumerProps(connect, "wg", map[string]string{"consumer.id": "c"}), Deps{})
	filter, err := NewWhitelist("w.*|a/b")
	if err != nil {
		t.Fatal(err)
	}
	streams, err := c.CreateMessageStreamsByFilter(filter, 1)
	if err != nil {
		t.Fatal(err)
	}
	data, _, err := b.zk.ReadData("/consumers/wg/ids/wg_c")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\{"version":1,"subscription":\{"w\.\*\|a\\/b":1\},"pattern":"white_list","timestamp":"\d+"\}$`).Match(data) {
		t.Fatalf("wildcard registration %s", data)
	}
	got := consumeN(t, streams[0], 10)
	sort.Strings(got)
	if strings.Join(got, ",") != "m0,m1,m2,m3,m4,m5,m6,m7,m8,m9" {
		t.Fatalf("w1: %v", got)
	}
	if err := c.CommitOffsets(); err != nil { // else the rebalance for w2 reads w1 again from its start
		t.Fatal(err)
	}
	b.createTopic(t, "w2", 1)
	b.produce(t, "w2", 1, 200, 3)
	if got := consumeN(t, streams[0], 3); strings.Join(got, ",") != "m200,m201,m202" {
		t.Fatalf("w2: %v", got)
	}
	if reg := c.TopicRegistry(); len(reg["other"]) != 0 || len(reg["w2"]) != 1 {
		t.Fatalf("owned %v", reg)
	}
}

// TestRebalanceBetweenMembers: a second member takes half of the partitions (range), and when
// it leaves the first takes them back; owners always name the current thread.
func TestRebalanceBetweenMembers(t *testing.T) {
	connect := zktest.Chroot(t)
	b := startBroker(t, connect, nil)
	b.createTopic(t, "r", 4)
	c1 := newConnector(t, consumerProps(connect, "rg", map[string]string{"consumer.id": "a"}), Deps{})
	if _, err := c1.CreateMessageStreams(map[string]int{"r": 1}); err != nil {
		t.Fatal(err)
	}
	owners := func() string {
		var s []string
		for p := 0; p < 4; p++ {
			data, _, ok, _ := b.zk.ReadDataMaybeNull(zkutils.GetConsumerPartitionOwnerPath("rg", "r", int32(p)))
			if !ok {
				data = []byte("-")
			}
			s = append(s, string(data))
		}
		return strings.Join(s, " ")
	}
	waitUntil(t, 20*time.Second, "a owns everything", func() bool { return owners() == "rg_a-0 rg_a-0 rg_a-0 rg_a-0" })
	c2 := newConnector(t, consumerProps(connect, "rg", map[string]string{"consumer.id": "b"}), Deps{})
	if _, err := c2.CreateMessageStreams(map[string]int{"r": 1}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 30*time.Second, "a and b split the partitions", func() bool { return owners() == "rg_a-0 rg_a-0 rg_b-0 rg_b-0" })
	if reg := c1.TopicRegistry(); fmt.Sprint(reg["r"]) != "[0 1]" {
		t.Fatalf("a owns %v", reg)
	}
	c2.Shutdown()
	waitUntil(t, 30*time.Second, "a takes everything back", func() bool { return owners() == "rg_a-0 rg_a-0 rg_a-0 rg_a-0" })
}

// TestSessionExpiryReregisters: after its ZooKeeper session expires for real, a member
// registers again (a new ephemeral node, owned by the new session), claims its partitions
// again and goes on consuming.
func TestSessionExpiryReregisters(t *testing.T) {
	connect := zktest.Chroot(t)
	b := startBroker(t, connect, nil)
	b.createTopic(t, "e", 2)
	b.produce(t, "e", 2, 0, 4)
	capture := zktest.NewSessionCapture()
	c := newConnector(t, consumerProps(connect, "eg", map[string]string{"consumer.id": "x"}), Deps{ZkOptions: []zkclient.Option{zkclient.WithDialer(capture.Dial)}})
	streams, err := c.CreateMessageStreams(map[string]int{"e": 1})
	if err != nil {
		t.Fatal(err)
	}
	consumeN(t, streams["e"][0], 4)
	_, st, err := b.zk.ReadData("/consumers/eg/ids/eg_x")
	if err != nil {
		t.Fatal(err)
	}
	oldSession := st.EphemeralOwner
	zktest.ExpireSession(t, capture)
	waitUntil(t, 30*time.Second, "re-registered with the new session", func() bool {
		_, st, err := b.zk.ReadData("/consumers/eg/ids/eg_x")
		return err == nil && st.EphemeralOwner != oldSession && st.EphemeralOwner == c.ZkUtils().ZkClient.SessionID()
	})
	waitUntil(t, 30*time.Second, "partitions owned again", func() bool {
		for p := int32(0); p < 2; p++ {
			data, st, ok, _ := b.zk.ReadDataMaybeNull(zkutils.GetConsumerPartitionOwnerPath("eg", "e", p))
			if !ok || string(data) != "eg_x-0" || st.EphemeralOwner != c.ZkUtils().ZkClient.SessionID() {
				return false
			}
		}
		return true
	})
	b.produce(t, "e", 2, 10, 2)
	got := consumeN(t, streams["e"][0], 2)
	sort.Strings(got)
	// Auto commit is off and nothing was committed: after the rebalance the member may read
	// 0..3 again (at least once); the new messages must come.
	more := got
	for !contains(more, "m10") || !contains(more, "m11") {
		more = append(more, consumeN(t, streams["e"][0], 1)...)
		if len(more) > 20 {
			t.Fatalf("new messages never came: %v", more)
		}
	}
}

func contains(s []string, x string) bool {
	for _, e := range s {
		if e == x {
			return true
		}
	}
	return false
}

// TestKafkaOffsetStorageAndDualCommit: with offsets.storage=kafka the commit goes to the group
// coordinator (OffsetFetch reads it back), and dual commit writes ZooKeeper too; a new member
// of the group resumes at the committed offsets.
func TestKafkaOffsetStorageAndDualCommit(t *testing.T) {
	connect := zktest.Chroot(t)
	b := startBroker(t, connect, nil)
	b.createTopic(t, "k", 2)
	b.produce(t, "k", 2, 0, 10)
	props := consumerProps(connect, "kg", map[string]string{"consumer.id": "c", "offsets.storage": "kafka"})
	c := newConnector(t, props, Deps{})
	streams, err := c.CreateMessageStreams(map[string]int{"k": 1})
	if err != nil {
		t.Fatal(err)
	}
	consumeN(t, streams["k"][0], 10)
	if err := c.CommitOffsets(); err != nil {
		t.Fatal(err)
	}
	got, ok, err := c.fetchOffsets([]common.TopicPartition{{Topic: "k", Partition: 0}, {Topic: "k", Partition: 1}})
	if err != nil || !ok || got[common.TopicPartition{Topic: "k", Partition: 0}] != 5 || got[common.TopicPartition{Topic: "k", Partition: 1}] != 5 {
		t.Fatalf("offsets from the coordinator: %v %v %v", got, ok, err)
	}
	for p := 0; p < 2; p++ {
		if data, _, err := b.zk.ReadData(fmt.Sprintf("/consumers/kg/offsets/k/%d", p)); err != nil || string(data) != "5" {
			t.Fatalf("dual commit to ZooKeeper, partition %d: %q %v", p, data, err)
		}
	}
	c.Shutdown()
	b.produce(t, "k", 2, 10, 2)
	c2 := newConnector(t, props, Deps{})
	s2, err := c2.CreateMessageStreams(map[string]int{"k": 1})
	if err != nil {
		t.Fatal(err)
	}
	got2 := consumeN(t, s2["k"][0], 2)
	sort.Strings(got2)
	if strings.Join(got2, ",") != "m10,m11" {
		t.Fatalf("resumed at %v", got2)
	}
}
