package coordinator

import (
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/utils"
)

// TestLoadUnloadPairsKeepOrder: 10,000 immigration/emigration pairs of __consumer_offsets
// partitions, scheduled back to back on the manager's real one-thread KafkaScheduler, each end
// in the ownership of the pair's second step (a load then an unload leaves the partition
// unowned, an unload then a load leaves it owned). With a goroutine per task the pairs swapped
// (seen: a stale coordinator 29 times in 50, an orphaned partition 41 times in 50).
func TestLoadUnloadPairsKeepOrder(t *testing.T) {
	const partitions, pairs = 50, 10_000
	clock := common.SystemTime{}
	rm := newFakeReplicaManager(t, clock)
	for p := int32(0); p < partitions; p++ {
		rm.addPartition(p)
	}
	cfg := DefaultOffsetConfig()
	cfg.OffsetsTopicNumPartitions = partitions
	sched := utils.NewKafkaScheduler(1, nil)
	mgr := NewGroupMetadataManager(GroupMetadataManagerConfig{Config: cfg, GroupMetadataValueVersion: 1, ReplicaManager: rm,
		Time: clock, Scheduler: sched})
	mgr.Startup()
	defer mgr.Shutdown()
	noop := func(*GroupMetadata) {}
	wrong := 0
	for batch := 0; batch < pairs/partitions; batch++ {
		// One pair per partition in each batch, alternating the order from batch to batch and
		// from partition to partition.
		for p := int32(0); p < partitions; p++ {
			if (batch+int(p))%2 == 0 {
				mgr.LoadGroupsForPartition(p, noop)
				mgr.RemoveGroupsForPartition(p, noop)
			} else {
				mgr.RemoveGroupsForPartition(p, noop)
				mgr.LoadGroupsForPartition(p, noop)
			}
		}
		drained := make(chan struct{})
		sched.Schedule("drained", func() { close(drained) }, 0, 0)
		select {
		case <-drained:
		case <-time.After(30 * time.Second):
			t.Fatalf("batch %d did not run", batch)
		}
		for p := int32(0); p < partitions; p++ {
			wantOwned := (batch+int(p))%2 == 1
			if mgr.IsPartitionOwned(p) != wantOwned || mgr.IsPartitionLoading(p) {
				wrong++
				if wrong <= 5 {
					t.Errorf("batch %d partition %d: owned %v loading %v, want owned %v", batch, p,
						mgr.IsPartitionOwned(p), mgr.IsPartitionLoading(p), wantOwned)
				}
			}
		}
	}
	if wrong > 0 {
		t.Fatalf("%d of %d pairs ended in the wrong ownership", wrong, pairs)
	}
}
