package server

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// TestKafkaServerClientQuotas runs one broker and drives it with sarama's own protocol code: a
// client-id quota written the way kafka-configs writes it (AdminUtils: /config/clients/<id> and
// a change notification) reaches the running broker, produce and fetch responses of that client
// id come back with throttle_time_ms > 0 (which sarama reports), the broker's registry shows the
// client's byte-rate and throttle-time, and deleting the quota stops the throttling.
//
// quota.window.num=2 makes the window 1-2 s, so the quota bites after ~100 kB instead of ~1 MB.
func TestKafkaServerClientQuotas(t *testing.T) {
	connect := zktest.Chroot(t)
	loggers, _ := testLoggers(t)
	cfg := brokerConfig(t, connect, t.TempDir(), map[string]string{"quota.window.num": "2"})
	srv := NewKafkaServer(cfg, nil, loggers, func(string) string { return "" })
	if err := srv.Startup(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	const topic, clientID = "quota", "quota-test"
	if err := srv.ZkUtils().CreatePersistentPath(zkutils.TopicPath(topic),
		zkutils.ReplicaAssignmentZkData(map[int32][]int32{0: {0}})); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		_, err := srv.ReplicaManager().getLeaderReplicaIfLocal(tpOf(topic, 0))
		return err == nil && srv.MetadataCache().Contains(topic)
	}, "leader of the new partition", 20*time.Second)

	conf := sarama.NewConfig()
	conf.ClientID = clientID
	conf.Version = sarama.V0_10_2_0
	b := sarama.NewBroker(fmt.Sprintf("127.0.0.1:%d", srv.BoundPort("PLAINTEXT")))
	if err := b.Open(conf); err != nil {
		t.Fatal(err)
	}
	defer b.Close() //nolint:errcheck
	value := make([]byte, 20_000)
	produce := func() time.Duration {
		t.Helper()
		req := &sarama.ProduceRequest{Version: 2, RequiredAcks: sarama.WaitForLocal, Timeout: 10_000}
		req.AddMessage(topic, 0, &sarama.Message{Version: 1, Value: value, Timestamp: time.Now()})
		resp, err := b.Produce(req)
		if err != nil {
			t.Fatal(err)
		}
		if blk := resp.GetBlock(topic, 0); blk == nil || blk.Err != sarama.ErrNoError {
			t.Fatalf("produce: %+v", blk)
		}
		return resp.ThrottleTime
	}
	offset := int64(0)
	fetch := func() time.Duration {
		t.Helper()
		req := &sarama.FetchRequest{Version: 3, MaxWaitTime: 100, MinBytes: 1, MaxBytes: 1 << 20}
		req.AddBlock(topic, 0, offset, 30_000, -1)
		resp, err := b.Fetch(req)
		if err != nil {
			t.Fatal(err)
		}
		blk := resp.GetBlock(topic, 0)
		if blk == nil || blk.Err != sarama.ErrNoError {
			t.Fatalf("fetch: %+v", blk)
		}
		if msgs := blk.RecordsSet; len(msgs) > 0 && msgs[0].MsgSet != nil && len(msgs[0].MsgSet.Messages) > 0 {
			offset = msgs[0].MsgSet.Messages[len(msgs[0].MsgSet.Messages)-1].Offset + 1
		}
		return resp.ThrottleTime
	}

	for range 3 {
		if th := produce(); th != 0 {
			t.Fatalf("throttled %v without a quota", th)
		}
	}
	if err := admin.NewAdminUtils(srv.ZkUtils(), nil, nil).ChangeClientIdConfig(clientID,
		map[string]string{ProducerByteRateOverrideProp: "50000", ConsumerByteRateOverrideProp: "50000"}); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		return srv.Quotas.Produce.Quota("ANONYMOUS", clientID).Bound() == 50000 && srv.Quotas.Fetch.Quota("ANONYMOUS", clientID).Bound() == 50000
	}, "the quota reaches the broker", 20*time.Second)

	throttledWithin := func(what string, op func() time.Duration) time.Duration {
		t.Helper()
		for range 50 {
			if th := op(); th > 0 {
				return th
			}
		}
		t.Fatalf("%s: 50 requests of 20 kB at full speed never throttled at 50 kB/s", what)
		return 0
	}
	pth := throttledWithin("produce", produce)
	fth := throttledWithin("fetch", fetch)
	t.Logf("throttle_time_ms: produce %v, fetch %v", pth, fth)
	for _, name := range []string{
		"kafka.server:type=Produce,name=byte-rate,client-id=" + clientID,
		"kafka.server:type=Produce,name=throttle-time,client-id=" + clientID,
		"kafka.server:type=Fetch,name=byte-rate,client-id=" + clientID,
		"kafka.server:type=Fetch,name=throttle-time,client-id=" + clientID,
	} {
		if v, ok := srv.Metrics.GaugeValue(name); !ok || v <= 0 {
			t.Errorf("%s = %v (registered %v)", name, v, ok)
		}
	}
	if _, ok := srv.Metrics.GaugeValue("kafka.server:type=Produce,name=queue-size"); !ok {
		t.Error("the produce delay queue-size is not registered")
	}

	// Deleting the overrides lifts the throttle for the very next request.
	if err := admin.NewAdminUtils(srv.ZkUtils(), nil, nil).ChangeClientIdConfig(clientID, map[string]string{}); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		return srv.Quotas.Produce.Quota("ANONYMOUS", clientID).Bound() == math.MaxInt64
	}, "the quota removal reaches the broker", 20*time.Second)
	for range 5 {
		if th := produce(); th != 0 {
			t.Fatalf("throttled %v after the quota was removed", th)
		}
	}
}
