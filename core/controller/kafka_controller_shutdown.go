package controller

import (
	"fmt"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
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
// work is not starved. A follower replica leaves the ISR only once the broker answered its
// StopReplica (0.10.2 sends it and goes on at once).
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

	stopTimeout := time.Duration(c.config.Props.ControllerSocketTimeoutMs) * time.Millisecond
	unresponsive := false
	for _, p := range partitions {
		c.controllerLock.Lock()
		var stopped <-chan struct{}
		if c.isActive() {
			stopped = c.moveOffBroker(id, p.tp, p.rf)
		}
		c.controllerLock.Unlock()
		if stopped == nil {
			continue
		}
		// The follower replica must have stopped fetching before it leaves the ISR, or the leader
		// puts it straight back (0.10.2 counts on the ZooKeeper round trip below being slower
		// than the StopReplica, "in most cases"; here the answer is awaited, without holding
		// controllerLock).
		if !unresponsive {
			wait := time.NewTimer(stopTimeout)
			select {
			case <-stopped:
			case <-wait.C:
				// the remaining partitions do not wait for a broker that stopped answering
				unresponsive = true
				c.log.Warnf("Broker %d did not answer the StopReplica of %s within %v", id, p.tp, stopTimeout)
			}
			wait.Stop()
		}
		c.controllerLock.Lock()
		if c.isActive() {
			_ = c.replicaStateMachine.HandleStateChanges([]PartitionAndReplica{{p.tp.Topic, p.tp.Partition, id}}, OfflineReplica, nil)
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

// moveOffBroker moves the leadership of tp off broker id, or, where id follows, sends it a
// StopReplica (deletePartition=false) and returns a channel closed once the broker answered it;
// the caller then takes the replica out of the ISR (OfflineReplica). Caller holds controllerLock.
func (c *KafkaController) moveOffBroker(id int32, tp common.TopicPartition, rf int) <-chan struct{} {
	l, ok := c.ctx.PartitionLeadershipInfo[tp]
	if !ok || rf <= 1 {
		return nil
	}
	if l.LeaderAndIsr.Leader == id {
		_ = c.partitionStateMachine.HandleStateChanges([]common.TopicPartition{tp}, OnlinePartition, c.controlledShutdownPartitionLeaderSelector)
		return nil
	}
	stopped := make(chan struct{})
	if !c.ctx.isLiveOrShuttingDown(id) {
		close(stopped)
		return stopped
	}
	req := &protocol.StopReplicaRequest{Version: 0, ControllerID: c.config.BrokerID, ControllerEpoch: c.ctx.Epoch,
		Partitions: []protocol.StopReplicaRequestPartition{{Topic: tp.Topic, Partition: tp.Partition}}}
	c.log.Debugf("The stop replica request (delete = false) sent to broker %d is %v", id, req.Partitions)
	c.channelManager.SendRequest(id, req, func(protocol.Message) { close(stopped) })
	return stopped
}
