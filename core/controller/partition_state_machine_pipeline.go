package controller

import (
	"errors"
	"fmt"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// handleOnlineStateChanges is handleStateChange(tp, OnlinePartition, selector)
// for each partition, in order, with the ZooKeeper round trips of the leader
// elections pipelined (zkutils.Pipelined).
//
// 0.10.2's controller elects one partition after the other, each with a read of
// the partition's state znode and a conditional write, two round trips and a
// ZooKeeper fsync per partition: about 3,300 elections take 12 s on this
// machine when a broker of a 10,000-partition cluster dies. Here the reads of
// all the partitions that need an election are in flight together, the
// selectors run in order on the controller's goroutine as before, the
// conditional writes are in flight together, and the results are applied in
// order. The znodes written, the leaders chosen and the requests sent are the
// ones the one-at-a-time path produces: each write is still conditional on the
// version read, and a partition whose write loses (someone else wrote the znode
// meanwhile) goes through electLeaderForPartition, which re-reads and retries
// as 0.10.2 does. Partitions that are New (their znode is created) and refused
// transitions take the one-at-a-time path too.
func (m *PartitionStateMachine) handleOnlineStateChanges(tps []common.TopicPartition, selector PartitionLeaderSelector) []error {
	if !m.hasStarted || len(tps) < 2 {
		var errs []error
		for _, tp := range tps {
			if err := m.handleStateChange(tp, OnlinePartition, selector); err != nil {
				errs = append(errs, err)
			}
		}
		return errs
	}
	c := m.controller
	id, epoch := c.config.BrokerID, c.ctx.Epoch

	// Which partitions elect a leader: those Online or Offline now.
	type election struct {
		tp        common.TopicPartition
		curr      PartitionState
		current   zkutils.LeaderIsrAndControllerEpoch
		ok        bool
		readErr   error
		next      zkutils.LeaderAndIsr
		replicas  []int32
		selectErr error
		written   bool
		version   int32
	}
	elections := map[common.TopicPartition]*election{}
	var order []*election
	for _, tp := range tps {
		curr, known := m.partitionState[tp]
		if !known || (curr != OnlinePartition && curr != OfflinePartition) {
			continue
		}
		if _, dup := elections[tp]; dup {
			continue
		}
		e := &election{tp: tp, curr: curr}
		elections[tp] = e
		order = append(order, e)
	}

	// The reads, together.
	zkutils.Pipelined(len(order), func(i int) {
		e := order[i]
		e.current, e.ok, e.readErr = c.zkUtils.GetLeaderIsrAndEpochForPartition(e.tp.Topic, e.tp.Partition)
	})
	// The selectors, in order, on this goroutine.
	var writes []*election
	for _, e := range order {
		c.stateChangeLog.Tracef("Controller %d epoch %d started leader election for partition %s", id, epoch, tpString(e.tp))
		e.next, e.replicas, e.selectErr = m.selectLeader(e.tp, selector, e.current, e.ok, e.readErr)
		if e.selectErr == nil {
			writes = append(writes, e)
		}
	}
	// The conditional writes, together.
	zkutils.Pipelined(len(writes), func(i int) {
		e := writes[i]
		e.written, e.version = c.zkUtils.UpdateLeaderAndIsr(e.tp.Topic, e.tp.Partition, e.next, epoch, e.current.LeaderAndIsr.ZkVersion)
	})

	// The results, in order.
	var errs []error
	for _, tp := range tps {
		e, ok := elections[tp]
		if !ok {
			if err := m.handleStateChange(tp, OnlinePartition, selector); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		delete(elections, tp) // a partition listed twice is elected once, then as any other
		var err error
		switch {
		case errors.Is(e.selectErr, ErrLeaderElectionNotNeeded):
		case e.selectErr != nil:
			err = e.selectErr
		case e.written:
			m.leaderElected(tp, e.next, e.version, e.replicas)
		case c.isShuttingDown():
			err = m.electionFailed(tp, errors.New("controller shutting down"))
		default:
			err = m.electLeaderForPartition(tp, selector)
		}
		if err != nil {
			c.stateChangeLog.WithError(err).Errorf("Controller %d epoch %d initiated state change for partition %s from %s to %s failed",
				id, epoch, tpString(tp), e.curr, OnlinePartition)
			errs = append(errs, fmt.Errorf("partition %s from %s to %s: %w", tpString(tp), e.curr, OnlinePartition, err))
			continue
		}
		m.partitionState[tp] = OnlinePartition
		c.stateChangeLog.Tracef("Controller %d epoch %d changed partition %s from %s to %s with leader %d",
			id, epoch, tpString(tp), e.curr, OnlinePartition, c.ctx.PartitionLeadershipInfo[tp].LeaderAndIsr.Leader)
	}
	return errs
}
