package controller

import (
	"errors"
	"slices"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// handleOfflineStateChanges is handleStateChange(r, OfflineReplica, nil) for
// each replica, in order, with the ZooKeeper round trips of the ISR removals
// pipelined (see handleOnlineStateChanges): the state znodes of the partitions
// are read together, what each removal writes is decided in order on the
// controller's goroutine, the conditional writes go out together, and the
// transitions are applied in order. A write that loses the version race goes
// through removeReplicaFromIsr, which re-reads and retries as 0.10.2 does. Only
// the first replica of a partition in the batch is pipelined; a second replica of
// the same partition (two brokers gone at once) takes the one-at-a-time path
// after the first has been applied, so that it reads what the first wrote.
func (m *ReplicaStateMachine) handleOfflineStateChanges(replicas []PartitionAndReplica) []error {
	if !m.hasStarted || len(replicas) < 2 {
		var errs []error
		for _, r := range replicas {
			if err := m.handleStateChange(r, OfflineReplica, nil); err != nil {
				errs = append(errs, err)
			}
		}
		return errs
	}
	c := m.controller
	type removal struct {
		r       PartitionAndReplica
		current zkutils.LeaderIsrAndControllerEpoch
		ok      bool
		readErr error
		step    isrRemoval
		written bool
		version int32
	}
	valid := validPreviousReplicaStates(OfflineReplica)
	byReplica := map[PartitionAndReplica]*removal{}
	seenPartition := map[common.TopicPartition]bool{}
	var order []*removal
	for _, r := range replicas {
		tp := r.TopicPartition()
		if seenPartition[tp] {
			continue
		}
		seenPartition[tp] = true
		curr, known := m.replicaState[r]
		if !known || !slices.Contains(valid, curr) {
			continue
		}
		if _, led := c.ctx.PartitionLeadershipInfo[tp]; !led {
			continue
		}
		x := &removal{r: r}
		byReplica[r] = x
		order = append(order, x)
	}

	zkutils.Pipelined(len(order), func(i int) {
		x := order[i]
		x.current, x.ok, x.readErr = c.zkUtils.GetLeaderIsrAndEpochForPartition(x.r.Topic, x.r.Partition)
	})
	var writes []*removal
	for _, x := range order {
		tp := x.r.TopicPartition()
		c.log.Debugf("Removing replica %d from ISR %v for partition %s.", x.r.Replica, c.ctx.PartitionLeadershipInfo[tp].LeaderAndIsr.Isr, tpString(tp))
		x.step = c.isrRemovalStep(tp, x.r.Replica, x.current, x.ok, x.readErr)
		if !x.step.done {
			writes = append(writes, x)
		}
	}
	epoch := c.ctx.Epoch
	zkutils.Pipelined(len(writes), func(i int) {
		x := writes[i]
		x.written, x.version = c.zkUtils.UpdateLeaderAndIsr(x.r.Topic, x.r.Partition, x.step.next, epoch, x.step.version)
	})

	var errs []error
	for _, r := range replicas {
		x, ok := byReplica[r]
		if !ok {
			if err := m.handleStateChange(r, OfflineReplica, nil); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		delete(byReplica, r) // listed twice: the second time as any other
		curr := m.replicaState[r]
		err := m.toOffline(r, curr, func() (zkutils.LeaderIsrAndControllerEpoch, bool, error) {
			if x.step.done {
				return x.step.final, x.step.ok, x.step.err
			}
			if final, done := c.isrRemovalWritten(r.TopicPartition(), x.step.next, x.written, x.version); done {
				return final, true, nil
			}
			if c.isShuttingDown() {
				return zkutils.LeaderIsrAndControllerEpoch{}, false, errors.New("controller shutting down")
			}
			return c.removeReplicaFromIsr(r.Topic, r.Partition, r.Replica)
		})
		if err != nil {
			errs = append(errs, m.transitionFailed(r, curr, OfflineReplica, err))
		}
	}
	return errs
}
