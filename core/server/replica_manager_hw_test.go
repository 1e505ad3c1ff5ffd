package server

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/log"
)

// TestHighWatermarkOnlyOnTheLeaderAndIdleFetchersStop: GetHighWatermark answers while this
// broker leads the partition and not once it follows (0.10.2's getHighWatermark goes through
// leaderReplicaIfLocal, which ends a __consumer_offsets load when leadership moves); a
// StopReplica that leaves a fetcher thread without partitions shuts that thread down, as
// KafkaApis.handleStopReplicaRequest does.
func TestHighWatermarkOnlyOnTheLeaderAndIdleFetchersStop(t *testing.T) {
	e := newApisEnv(t, nil)
	e.lead(t, "t", 1, []int32{0, 1})
	tp := tpOf("t", 0)
	if _, ok := e.rm.GetHighWatermark(tp); !ok {
		t.Fatal("no HW on the leader")
	}
	e.follow(t, "t")
	e.ch.take(t)
	if hw, ok := e.rm.GetHighWatermark(tp); ok {
		t.Errorf("a follower answered HW %d", hw)
	}
	if n := len(e.rm.replication.replicaFetcherManager.FetcherThreads()); n != 1 {
		t.Fatalf("%d fetcher threads after becoming a follower, want 1", n)
	}
	e.handle(&protocol.StopReplicaRequest{ControllerID: 0, ControllerEpoch: 1,
		Partitions: []protocol.StopReplicaRequestPartition{{Topic: "t", Partition: 0}}}, "c")
	if r := decode(t, e.ch.take(t), protocol.StopReplica, 0).(*protocol.StopReplicaResponse); r.ErrorCode != 0 {
		t.Fatalf("StopReplica %+v", r)
	}
	if n := len(e.rm.replication.replicaFetcherManager.FetcherThreads()); n != 0 {
		t.Errorf("%d idle fetcher threads left after StopReplica, want 0", n)
	}
}

// TestHighWatermarkCheckpointSkipsDirectoriesWithoutReplicas: with two log dirs and replicas in
// only one, the HW checkpoint leaves the other directory's file alone (0.10.2 writes the
// directories of its replicas only); overwriting it with an empty list lost the HWs of the
// partitions whose LeaderAndIsr had not arrived yet after a restart.
func TestHighWatermarkCheckpointSkipsDirectoriesWithoutReplicas(t *testing.T) {
	d1, d2 := t.TempDir(), t.TempDir()
	e := newApisEnv(t, map[string]string{"log.dirs": d1 + "," + d2})
	previous := map[common.TopicPartition]int64{tpOf("later", 0): 42}
	for _, d := range []string{d1, d2} {
		cp, err := log.NewOffsetCheckpoint(filepath.Join(d, log.ReplicationOffsetCheckpointFile))
		if err != nil {
			t.Fatal(err)
		}
		if err := cp.Write(previous); err != nil {
			t.Fatal(err)
		}
	}
	e.lead(t, "now", 1, []int32{0})
	l := e.lm.GetLog(tpOf("now", 0))
	if l == nil {
		t.Fatal("no log")
	}
	used, other := d1, d2
	if !strings.HasPrefix(l.Dir(), d1+string(filepath.Separator)) {
		used, other = d2, d1
	}
	if err := e.rm.CheckpointHighWatermarks(); err != nil {
		t.Fatal(err)
	}
	read := func(dir string) map[common.TopicPartition]int64 {
		cp, err := log.NewOffsetCheckpoint(filepath.Join(dir, log.ReplicationOffsetCheckpointFile))
		if err != nil {
			t.Fatal(err)
		}
		m, err := cp.Read()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if got := read(other); len(got) != 1 || got[tpOf("later", 0)] != 42 {
		t.Errorf("the directory without replicas has %v, want its previous checkpoint %v", got, previous)
	}
	if got := read(used); len(got) != 1 {
		t.Errorf("the directory with the replica has %v, want the one partition", got)
	}
}
