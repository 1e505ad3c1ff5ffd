package controller

import (
	"fmt"

	"github.com/zkafka/zkafka/clients/common"
)

// ShutdownBroker handles a ControlledShutdown request from broker id: it marks
// the broker as shutting down, moves away the leadership of every replicated
// partition it leads (ControlledShutdownLeaderSelector), takes its follower
// replicas out of the ISR, and returns the replicated partitions it still
// leads (the response's partitionsRemaining; empty means done). KafkaApis
// routes ControlledShutdown here.
//
// Kafka 0.10.2: kafka.controller.KafkaController.shutdownBroker. Leadership moves one partition
// at a time, releasing controllerLock in between, so that other controller
// work is not starved.
func (c *KafkaController) ShutdownBroker(id int32) ([]common.TopicPartition, error) {
	if !c.IsActive() {
		return nil, fmt.Errorf("%w: Controller moved to another broker. Aborting controlled shutdown", ErrControllerMoved)
	}
	c.brokerShutdownLock.Lock()
	defer c.brokerShutdownLock.Unlock()
	c.log.Infof("Shutting down broker %d", id)

	type partitionRF struct {
		tp common.TopicPartition
		rf int
	}
	var partitions []partitionRF
	err := func() error {
		c.controllerLock.Lock()
		defer c.controllerLock.Unlock()
		if !c.isActive() {
			return fmt.Errorf("%w: Controller moved to another broker. Aborting controlled shutdown", ErrControllerMoved)
		}
		if !c.ctx.isLiveOrShuttingDown(id) {
			return fmt.Errorf("%w: Broker id %d does not exist.", ErrBrokerNotAvailable, id)
		}
		c.ctx.ShuttingDownBrokerIds[id] = struct{}{}
		c.log.Debugf("All shutting down brokers: %v", sortedKeys(c.ctx.ShuttingDownBrokerIds))
		c.log.Debugf("Live brokers: %v", c.ctx.LiveBrokerIds())
		for _, tp := range c.ctx.PartitionsOnBroker(id) {
			partitions = append(partitions, partitionRF{tp, len(c.ctx.PartitionReplicaAssignment[tp])})
		}
		return nil
	}()
	if err != nil {
		return nil, err
	}

	for _, p := range partitions {
		c.controllerLock.Lock()
		if c.isActive() {
			c.moveOffBroker(id, p.tp, p.rf)
		}
		c.controllerLock.Unlock()
	}

	c.controllerLock.Lock()
	defer c.controllerLock.Unlock()
	var remaining []common.TopicPartition
	for tp, l := range c.ctx.PartitionLeadershipInfo {
		if l.LeaderAndIsr.Leader == id && len(c.ctx.PartitionReplicaAssignment[tp]) > 1 {
			remaining = append(remaining, tp)
		}
	}
	sortTPs(remaining)
	return remaining, nil
}

// moveOffBroker: caller holds controllerLock.
func (c *KafkaController) moveOffBroker(id int32, tp common.TopicPartition, rf int) {
	l, ok := c.ctx.PartitionLeadershipInfo[tp]
	if !ok || rf <= 1 {
		return
	}
	if l.LeaderAndIsr.Leader == id {
		_ = c.partitionStateMachine.HandleStateChanges([]common.TopicPartition{tp}, OnlinePartition, c.controlledShutdownPartitionLeaderSelector)
		return
	}
	// Stop the follower first: the ISR change below takes a ZooKeeper round
	// trip, by which time the replica has usually stopped fetching.
	if err := c.brokerRequestBatch.NewBatch(); err != nil {
		c.log.WithError(err).Error("Forcing the controller to resign")
		c.controllerElector.Resign()
		return
	}
	c.brokerRequestBatch.AddStopReplicaRequestForBrokers([]int32{id}, tp, false, nil)
	c.brokerRequestBatch.SendRequestsToBrokers(c.ctx.Epoch)
	_ = c.replicaStateMachine.HandleStateChanges([]PartitionAndReplica{{tp.Topic, tp.Partition, id}}, OfflineReplica, nil)
}
