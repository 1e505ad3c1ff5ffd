package server

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/zk/zktest"
)

// The double failure of KIP-101, driven step by step by the test controller (deterministic: no
// session timeouts, no races with the real controller). Brokers 0, 1, 2; the partition's leader
// is 2 with followers 1 and 0, acks=-1, min.insync.replicas=2.
//
//  1. Message "acked" is acknowledged at offset 5: both followers have it, but their high
//     watermark is still 5, since the leader answers their next fetch only after
//     replica.fetch.wait.max.ms (30 s here) or when new data comes.
//  2. The leader (2) dies before that answer, and so does follower 1, which stays registered in
//     ZooKeeper a while (its session has not expired): the controller elects 1, and follower 0
//     becomes its follower.
//  3. 1's session expires: the controller elects 0, alone in the ISR.
//
// With 0.10.2's truncation, step 2 makes broker 0 truncate its log to its high watermark (5)
// and it leads without the acknowledged message; the next message gets offset 5 again. With
// zkafka.leader.epoch.truncation.enable, broker 0 only truncates once the new leader has said
// where its epoch ends; the dead leader never answers, and broker 0 leads with the message.
type kip101Run struct {
	c  *replicationCluster
	tp common.TopicPartition
	s  partitionState
}

const kip101Acked = "acked"

func startKip101(t *testing.T, epochTruncation bool) *kip101Run {
	c := newReplicationCluster(t, 3, map[string]string{
		"min.insync.replicas":                           "2",
		"replica.fetch.wait.max.ms":                     "30000",
		"replica.lag.time.max.ms":                       "60000",
		LeaderEpochTruncationEnableProp:                 fmt.Sprint(epochTruncation),
		"replica.high.watermark.checkpoint.interval.ms": "100",
	}, true)
	r := &kip101Run{c: c, tp: tpOf("kip101", 0)}
	r.s = partitionState{topic: "kip101", partition: 0, leader: 2, leaderEpoch: 0, isr: []int32{2, 1, 0}, replicas: []int32{2, 1, 0}}
	c.elect(&r.s)
	if code, base := c.produceValues(2, r.tp, -1, "a0", "a1", "a2", "a3", "a4"); code != 0 || base != 0 {
		t.Fatalf("acks=-1 produce: error %d base %d", code, base)
	}
	if code, base := c.produceValues(2, r.tp, -1, kip101Acked); code != 0 || base != 5 {
		t.Fatalf("acks=-1 produce of %q: error %d base %d", kip101Acked, code, base)
	}
	// The followers' answer to their fetch at 6 (carrying HW 6) is parked at the leader; closing
	// their fetchers now stands for the leader dying before it sends it.
	for _, id := range []int32{0, 1} {
		c.repl[id].replicaFetcherManager.CloseAllFetchers()
		if leo, hw := c.replica(id, r.tp); leo != 6 || hw != 5 {
			t.Fatalf("follower %d: LEO %d HW %d, want 6 and 5 (the acknowledged message above the HW)", id, leo, hw)
		}
	}
	c.stop(2)
	c.stop(1)

	// Broker 2's session expires first: the controller elects 1, dead but still registered.
	r.s.leader, r.s.leaderEpoch, r.s.isr = 1, 1, []int32{1, 0}
	r.s.zkVersion = c.writeState(r.s)
	c.updateMetadataLive([]partitionState{r.s}, []int32{0, 1}, 0)
	c.leaderAndIsr(r.s, 0)
	return r
}

// electSurvivor is step 3: broker 1's session expires, broker 0 leads alone.
func (r *kip101Run) electSurvivor() {
	r.s.leader, r.s.leaderEpoch, r.s.isr = 0, 2, []int32{0}
	r.s.zkVersion = r.c.writeState(r.s)
	r.c.updateMetadataLive([]partitionState{r.s}, []int32{0}, 0)
	r.c.leaderAndIsr(r.s, 0)
}

// values reads broker id's log of the partition from offset 0.
func (r *kip101Run) values(t *testing.T, id int32) []string {
	t.Helper()
	l := r.c.servers[id].ReplicaManager().GetPartition(r.tp).LocalReplica().Log
	fd, err := l.Read(0, 1<<20, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	mr, ok := fd.Records.(*record.MemoryRecords)
	if !ok {
		fr := fd.Records.(*record.FileRecords)
		buf := make([]byte, fr.SizeInBytes())
		if _, err := fr.ReadInto(buf, 0); err != nil {
			t.Fatal(err)
		}
		mr = record.NewMemoryRecords(buf)
	}
	var out []string
	for e, err := range mr.DeepEntries() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(e.Record.Value()))
	}
	return out
}

// TestHighWatermarkTruncationLosesAckedMessage is 0.10.2's behaviour (the mode off): the
// acknowledged message is gone and its offset is handed out again.
func TestHighWatermarkTruncationLosesAckedMessage(t *testing.T) {
	r := startKip101(t, false)
	c := r.c
	if leo, hw := c.replica(0, r.tp); leo != 5 || hw != 5 {
		t.Fatalf("broker 0 after becoming 1's follower: LEO %d HW %d, want 5 and 5 (truncated to its HW)", leo, hw)
	}
	if !c.hooks[0].contains("Truncating log kip101-0 to offset 5.") {
		t.Fatal("no truncation line")
	}
	r.electSurvivor()
	if code, base := c.produceValues(0, r.tp, 1, "next"); code != 0 || base != 5 {
		t.Fatalf("produce to the new leader: error %d base %d, want offset 5", code, base)
	}
	if got := r.values(t, 0); !slices.Equal(got, []string{"a0", "a1", "a2", "a3", "a4", "next"}) {
		t.Fatalf("the new leader's log %v", got)
	}
	t.Logf("acknowledged %q at offset 5 is lost; %q was acknowledged at offset 5 after it", kip101Acked, "next")
}

// TestLeaderEpochTruncationKeepsAckedMessage is the same run with
// zkafka.leader.epoch.truncation.enable: broker 0 keeps the message, leads with it, and the
// replicas that come back truncate only what the new leader does not have.
func TestLeaderEpochTruncationKeepsAckedMessage(t *testing.T) {
	r := startKip101(t, true)
	c := r.c
	zktest.WaitUntilTrue(t, func() bool {
		return c.hooks[0].contains("Error when sending leader epoch request")
	}, "a failed epoch exchange with the dead leader", 30*time.Second)
	if leo, _ := c.replica(0, r.tp); leo != 6 {
		t.Fatalf("broker 0 LEO %d while following a dead leader, want 6 (nothing truncated)", leo)
	}
	if f := c.repl[0].replicaFetcherManager.FetcherFor(r.tp); f == nil {
		t.Fatal("no fetcher")
	} else if s, _ := f.FetchState(r.tp); !s.TruncatingLog {
		t.Fatalf("fetch state %v, want truncating", s)
	}
	r.electSurvivor()
	if !c.hooks[0].contains("kip101-0 starts at Leader Epoch 2 from offset 6. Previous Leader Epoch was: 1") {
		t.Fatal("no leader-epoch line")
	}
	if code, base := c.produceValues(0, r.tp, 1, "next"); code != 0 || base != 6 {
		t.Fatalf("produce to the new leader: error %d base %d, want offset 6", code, base)
	}
	want := []string{"a0", "a1", "a2", "a3", "a4", kip101Acked, "next"}
	if got := r.values(t, 0); !slices.Equal(got, want) {
		t.Fatalf("the new leader's log %v, want %v", got, want)
	}
	cache := c.servers[0].ReplicaManager().GetPartition(r.tp).LocalReplica().Log.LeaderEpochCache()
	if got := cache.EpochEntries(); !slices.Equal(got, []log.EpochEntry{{Epoch: 0, StartOffset: 0}, {Epoch: 2, StartOffset: 6}}) {
		t.Fatalf("broker 0's epochs %v", got)
	}

	// Brokers 1 and 2 come back as followers: each asks for the end of its latest epoch (0),
	// gets 6, keeps the acknowledged message and fetches the rest.
	c.start(1)
	c.start(2)
	r.s.leaderEpoch, r.s.isr = 3, []int32{0, 1, 2}
	r.s.zkVersion = c.writeState(r.s)
	c.updateMetadata([]partitionState{r.s})
	c.leaderAndIsr(r.s, 0, 1, 2)
	for _, id := range []int32{1, 2} {
		zktest.WaitUntilTrue(t, func() bool { leo, _ := c.replica(id, r.tp); return leo == 7 }, fmt.Sprintf("broker %d caught up", id), 30*time.Second)
		if got := r.values(t, id); !slices.Equal(got, want) {
			t.Fatalf("broker %d's log %v, want %v", id, got, want)
		}
		if !c.hooks[id].contains("leader replied with an offset 6 >= the follower's log end offset 6 in kip101-0. No truncation needed.") {
			t.Errorf("broker %d: no epoch answer line", id)
		}
	}
}

// A client cannot reach the broker-to-broker extension: ApiVersions answers 0.10.2's table
// with the mode on, and key 23 closes the connection (0.10.2's answer to an unknown key) unless
// the client id is a replica fetcher's naming this broker; then the leader answers per partition.
func TestOffsetForLeaderEpochOnlyForReplicaFetchers(t *testing.T) {
	for _, on := range []bool{false, true} {
		t.Run(fmt.Sprint("mode-", on), func(t *testing.T) {
			c := newReplicationCluster(t, 1, map[string]string{LeaderEpochTruncationEnableProp: fmt.Sprint(on)})
			s := partitionState{topic: "e", partition: 0, leader: 0, leaderEpoch: 4, isr: []int32{0}, replicas: []int32{0}}
			c.elect(&s)
			if code, _ := c.produce(0, tpOf("e", 0), 1, 3); code != 0 {
				t.Fatal(code)
			}
			av := dialRaw(t, c.ports[0]).roundTrip(t, &protocol.ApiVersionsRequest{}).(*protocol.ApiVersionsResponse)
			if want := protocol.ApiVersionsResponseDefault(); !slices.Equal(av.ApiVersions, want.ApiVersions) {
				t.Fatalf("ApiVersions %v", av.ApiVersions)
			}
			req := &protocol.OffsetsForLeaderEpochRequest{Topics: []protocol.OffsetsForLeaderEpochRequestTopic{{Topic: "e",
				Partitions: []protocol.OffsetsForLeaderEpochRequestTopicPartition{{PartitionID: 0, LeaderEpoch: 4}, {PartitionID: 1, LeaderEpoch: 0}}}}}
			for _, cid := range []string{"sarama", "ReplicaFetcherThread-0-7", "ReplicaFetcherThread-0-0"} {
				rc := dialRaw(t, c.ports[0])
				rc.send(t, req, cid)
				frame, err := rc.readFrame()
				if !on || cid != "ReplicaFetcherThread-0-0" {
					if err == nil {
						t.Fatalf("client %q got an answer to key 23", cid)
					}
					continue
				}
				if err != nil {
					t.Fatalf("replica fetcher got no answer: %v", err)
				}
				_, body, err := protocol.ReadResponseHeader(frame)
				if err != nil {
					t.Fatal(err)
				}
				resp := &protocol.OffsetsForLeaderEpochResponse{}
				if err := resp.ReadFrom(body); err != nil {
					t.Fatal(err)
				}
				got := resp.Topics[0].Partitions
				if len(got) != 2 || got[0] != (protocol.OffsetsForLeaderEpochResponseTopicPartition{PartitionID: 0, EndOffset: 3}) ||
					got[1].ErrorCode != protocol.ErrUnknownTopicOrPartition.Code || got[1].EndOffset != -1 {
					t.Fatalf("answer %+v", got)
				}
			}
		})
	}
}

// Mixed settings are refused at startup, in both directions, with the reason in the error.
func TestMixedLeaderEpochTruncationSettingsRefused(t *testing.T) {
	c := newReplicationCluster(t, 1, map[string]string{LeaderEpochTruncationEnableProp: "true"})
	for _, tc := range []struct {
		id    int32
		value string
		ok    bool
	}{{1, "false", false}, {2, "true", true}} {
		loggers, _ := testLoggers(t)
		props := map[string]string{"broker.id": fmt.Sprint(tc.id), LeaderEpochTruncationEnableProp: tc.value}
		srv := NewKafkaServer(brokerConfig(t, c.connect, t.TempDir(), props), nil, loggers, func(string) string { return "" })
		err := srv.Startup()
		if tc.ok {
			if err != nil {
				t.Fatalf("broker %d with the same setting: %v", tc.id, err)
			}
			srv.Shutdown()
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "broker 0 runs with zkafka.leader.epoch.truncation.enable=true and this broker has false") {
			srv.Shutdown()
			t.Fatalf("broker %d with the other setting: %v", tc.id, err)
		}
		if ok, _ := c.servers[0].ZkUtils().PathExists("/brokers/ids/1"); ok {
			t.Fatal("the refused broker stayed registered")
		}
	}
	// The other way round: a cluster with the mode off refuses a broker with it on.
	off := newReplicationCluster(t, 1, nil)
	loggers, _ := testLoggers(t)
	srv := NewKafkaServer(brokerConfig(t, off.connect, t.TempDir(), map[string]string{"broker.id": "5", LeaderEpochTruncationEnableProp: "true"}),
		nil, loggers, func(string) string { return "" })
	if err := srv.Startup(); err == nil || !strings.Contains(err.Error(), "runs with zkafka.leader.epoch.truncation.enable=false and this broker has true") {
		srv.Shutdown()
		t.Fatalf("on next to off: %v", err)
	}
	if got := string(ZkafkaBrokerMarkerData(true)); got != `{"version":1,"leader.epoch.truncation.enable":true}` {
		t.Fatal(got)
	}
}
