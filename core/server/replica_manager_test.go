package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/log"
)

// TestHighWatermarkCheckpointTask: the first LeaderAndIsr starts the checkpoint task, which
// writes every replica's HW each replica.high.watermark.checkpoint.interval.ms.
func TestHighWatermarkCheckpointTask(t *testing.T) {
	e := newApisEnv(t, map[string]string{"replica.high.watermark.checkpoint.interval.ms": "5000"})
	e.lead(t, "t", 2, []int32{0})
	if p := e.sched.Pending(); len(p) != 1 || !strings.Contains(p[0], "highwatermark-checkpoint") {
		t.Fatalf("scheduled tasks %v", p)
	}
	cp, err := log.NewOffsetCheckpoint(filepath.Join(e.lm.LogDirs()[0], log.ReplicationOffsetCheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	e.handle(produceReq("t", 1, map[int32]record.Records{0: recordSet(t, 3, record.NONE), 1: recordSet(t, 1, record.NONE)}), "p")
	e.ch.take(t)
	if got, _ := cp.Read(); got[tpOf("t", 0)] != 0 {
		t.Fatalf("checkpoint before the period: %v", got)
	}
	e.clock.Advance(5 * time.Second)
	e.sched.Tick()
	got, err := cp.Read()
	if err != nil {
		t.Fatal(err)
	}
	if got[tpOf("t", 0)] != 3 || got[tpOf("t", 1)] != 1 || len(got) != 2 {
		t.Fatalf("checkpoint %v, want t-0:3 t-1:1", got)
	}
}

// TestStopReplicaDelete: StopReplica with delete drops the partition and renames its log
// directory for asynchronous deletion; without delete the partition stays.
func TestStopReplicaDelete(t *testing.T) {
	e := newApisEnv(t, nil)
	e.lead(t, "t", 2, []int32{0})
	dir := e.rm.GetPartition(tpOf("t", 0)).LocalReplica().Log.Dir()
	e.handle(&protocol.StopReplicaRequest{ControllerID: 0, ControllerEpoch: 1, DeletePartitions: false,
		Partitions: []protocol.StopReplicaRequestPartition{{Topic: "t", Partition: 1}}}, "c")
	if r := decode(t, e.ch.take(t), protocol.StopReplica, 0).(*protocol.StopReplicaResponse); r.ErrorCode != 0 || e.rm.GetPartition(tpOf("t", 1)) == nil {
		t.Fatalf("stop without delete %+v", r)
	}
	e.handle(&protocol.StopReplicaRequest{ControllerID: 0, ControllerEpoch: 1, DeletePartitions: true,
		Partitions: []protocol.StopReplicaRequestPartition{{Topic: "t", Partition: 0}}}, "c")
	r := decode(t, e.ch.take(t), protocol.StopReplica, 0).(*protocol.StopReplicaResponse)
	if r.ErrorCode != 0 || len(r.Partitions) != 1 || r.Partitions[0].ErrorCode != 0 {
		t.Fatalf("stop with delete %+v", r)
	}
	if e.rm.GetPartition(tpOf("t", 0)) != nil || e.lm.GetLog(tpOf("t", 0)) != nil {
		t.Fatal("partition or log still there")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("log directory %s not renamed: %v", dir, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	renamed := false
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), "t-0.") && strings.HasSuffix(en.Name(), "-delete") {
			renamed = true
		}
	}
	if !renamed {
		t.Fatal("no t-0.<uuid>-delete directory")
	}
	// Producing to the stopped partition now fails.
	e.handle(produceReq("t", 1, map[int32]record.Records{0: recordSet(t, 1, record.NONE)}), "p")
	if p := decode(t, e.ch.take(t), protocol.Produce, 2).(*protocol.ProduceResponse).Responses[0].PartitionResponses[0]; p.ErrorCode != protocol.ErrUnknownTopicOrPartition.Code {
		t.Fatalf("produce to a deleted partition: %+v", p)
	}
}
