package controller

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// newOfflineController is a controller that is not elected, with a context
// set by hand (brokers 1-3 live, epoch 1) and started state machines; its
// requests go to a channel manager without brokers (dropped).
func newOfflineController(t *testing.T) (*KafkaController, *logCapture, *zkutils.ZkUtils) {
	t.Helper()
	cl := newCluster(t)
	scl, capture := stateChangeLogger(t)
	c := NewKafkaController(testConfig(t, 1, nil), cl.admin, nil, common.SystemTime{}, nil,
		logrus.NewEntry(newLogger(t, logrus.ErrorLevel)), logrus.NewEntry(scl))
	var brokers []zkutils.BrokerInfo
	for id := int32(1); id <= 3; id++ {
		brokers = append(brokers, zkutils.NewBrokerInfo(id, 4, nil, -1, "", 0))
	}
	c.ctx.SetLiveBrokers(brokers)
	c.setEpoch(1, 0)
	c.channelManager = newControllerChannelManager(1, c.epoch.Load, "PLAINTEXT", time.Second, time.Second, nil, c.log, logrus.NewEntry(scl), nil)
	t.Cleanup(c.channelManager.Shutdown)
	c.partitionStateMachine.hasStarted = true
	c.replicaStateMachine.hasStarted = true
	return c, capture, cl.admin
}

// The partition and replica transition tables are scripts: testdata/state_machines, run by
// TestStateMachineScripts (state_machine_script_test.go).

// TestLeaderSelectors runs each selector against hand-made contexts.
func TestLeaderSelectors(t *testing.T) {
	log := logrus.NewEntry(newLogger(t, logrus.ErrorLevel))
	tp := common.TopicPartition{Topic: "t", Partition: 0}
	mkCtx := func(live []int32, shuttingDown []int32, ar []int32) *ControllerContext {
		ctx := NewControllerContext()
		var bs []zkutils.BrokerInfo
		for _, id := range live {
			bs = append(bs, zkutils.BrokerInfo{ID: id})
		}
		ctx.SetLiveBrokers(bs)
		for _, id := range shuttingDown {
			ctx.ShuttingDownBrokerIds[id] = struct{}{}
		}
		ctx.PartitionReplicaAssignment[tp] = ar
		return ctx
	}
	cur := func(leader int32, isr ...int32) zkutils.LeaderAndIsr {
		return zkutils.LeaderAndIsr{Leader: leader, LeaderEpoch: 5, Isr: isr, ZkVersion: 7}
	}
	offline := func(ctx *ControllerContext, unclean bool) PartitionLeaderSelector {
		return &OfflinePartitionLeaderSelector{ctx: ctx, log: log, uncleanLeaderElectionEnable: func(string) bool { return unclean }}
	}
	withReassign := func(ctx *ControllerContext, rar ...int32) *ControllerContext {
		ctx.PartitionsBeingReassigned[tp] = &ReassignedPartitionsContext{NewReplicas: rar}
		return ctx
	}
	withLeader := func(ctx *ControllerContext, l zkutils.LeaderAndIsr) *ControllerContext {
		ctx.PartitionLeadershipInfo[tp] = zkutils.LeaderIsrAndControllerEpoch{LeaderAndIsr: l, ControllerEpoch: 1}
		return ctx
	}
	cases := []struct {
		name       string
		sel        PartitionLeaderSelector
		current    zkutils.LeaderAndIsr
		wantErr    error
		wantLeader int32
		wantIsr    []int32
		wantSendTo []int32
	}{
		{"offline: first live ISR member in AR order", offline(mkCtx([]int32{2, 3}, nil, []int32{1, 3, 2}), false), cur(1, 1, 2, 3), nil, 3, []int32{2, 3}, []int32{3, 2}},
		{"offline: no live ISR member, unclean off", offline(mkCtx([]int32{2, 3}, nil, []int32{1, 2, 3}), false), cur(1, 1), ErrNoReplicaOnline, 0, nil, nil},
		{"offline: no live ISR member, unclean on", offline(mkCtx([]int32{2, 3}, nil, []int32{1, 2, 3}), true), cur(1, 1), nil, 2, []int32{2}, []int32{2, 3}},
		{"offline: unclean on but no live replica", offline(mkCtx([]int32{4}, nil, []int32{1, 2, 3}), true), cur(1, 1), ErrNoReplicaOnline, 0, nil, nil},
		{"offline: shutting-down brokers are not live", offline(mkCtx([]int32{1, 2, 3}, []int32{1}, []int32{1, 2, 3}), false), cur(-1, 1, 2), nil, 2, []int32{2}, []int32{2, 3}},
		{"reassigned: first live RAR member in ISR", &ReassignedPartitionLeaderSelector{withReassign(mkCtx([]int32{1, 4, 5}, nil, []int32{1, 2}), 4, 5)}, cur(1, 1, 4, 5), nil, 4, []int32{1, 4, 5}, []int32{4, 5}},
		{"reassigned: dead RAR member skipped", &ReassignedPartitionLeaderSelector{withReassign(mkCtx([]int32{1, 5}, nil, []int32{1, 2}), 4, 5)}, cur(1, 1, 4, 5), nil, 5, []int32{1, 4, 5}, []int32{4, 5}},
		{"reassigned: no RAR member in ISR", &ReassignedPartitionLeaderSelector{withReassign(mkCtx([]int32{1, 4, 5}, nil, []int32{1, 2}), 4, 5)}, cur(1, 1), ErrNoReplicaOnline, 0, nil, nil},
		{"reassigned: no RAR", &ReassignedPartitionLeaderSelector{mkCtx([]int32{1}, nil, []int32{1, 2})}, cur(1, 1), ErrNoReplicaOnline, 0, nil, nil},
		{"preferred: moves to AR[0]", &PreferredReplicaPartitionLeaderSelector{withLeader(mkCtx([]int32{1, 2}, nil, []int32{1, 2}), cur(2, 2, 1)), log}, cur(2, 2, 1), nil, 1, []int32{2, 1}, []int32{1, 2}},
		{"preferred: not in ISR", &PreferredReplicaPartitionLeaderSelector{withLeader(mkCtx([]int32{1, 2}, nil, []int32{1, 2}), cur(2, 2)), log}, cur(2, 2), ErrStateChangeFailed, 0, nil, nil},
		{"preferred: not alive", &PreferredReplicaPartitionLeaderSelector{withLeader(mkCtx([]int32{2}, nil, []int32{1, 2}), cur(2, 2, 1)), log}, cur(2, 2, 1), ErrStateChangeFailed, 0, nil, nil},
		{"preferred: already leader", &PreferredReplicaPartitionLeaderSelector{withLeader(mkCtx([]int32{1, 2}, nil, []int32{1, 2}), cur(1, 1, 2)), log}, cur(1, 1, 2), ErrLeaderElectionNotNeeded, 0, nil, nil},
		{"controlled shutdown: leader leaves ISR", &ControlledShutdownLeaderSelector{mkCtx([]int32{1, 2, 3}, []int32{1}, []int32{1, 2, 3}), log}, cur(1, 1, 2, 3), nil, 2, []int32{2, 3}, []int32{1, 2, 3}},
		{"controlled shutdown: unregistered replica skipped", &ControlledShutdownLeaderSelector{mkCtx([]int32{1, 3}, []int32{1}, []int32{1, 2, 3}), log}, cur(1, 1, 2, 3), nil, 3, []int32{2, 3}, []int32{1, 3}},
		{"controlled shutdown: only the shutting-down broker in ISR", &ControlledShutdownLeaderSelector{mkCtx([]int32{1, 2}, []int32{1}, []int32{1, 2}), log}, cur(1, 1), ErrStateChangeFailed, 0, nil, nil},
		{"noop", &NoOpLeaderSelector{mkCtx([]int32{1, 2}, nil, []int32{1, 2}), log}, cur(1, 1, 2), nil, 1, []int32{1, 2}, []int32{1, 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, sendTo, err := tc.sel.SelectLeader(tp, tc.current)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantEpoch := tc.current.LeaderEpoch + 1
			if _, noop := tc.sel.(*NoOpLeaderSelector); noop {
				wantEpoch = tc.current.LeaderEpoch
			}
			if got.Leader != tc.wantLeader || !slices.Equal(got.Isr, tc.wantIsr) || got.LeaderEpoch != wantEpoch ||
				got.ZkVersion != tc.current.ZkVersion || !slices.Equal(sendTo, tc.wantSendTo) {
				t.Fatalf("got %s zkVersion %d to %v; want leader %d isr %v epoch %d to %v",
					got, got.ZkVersion, sendTo, tc.wantLeader, tc.wantIsr, wantEpoch, tc.wantSendTo)
			}
		})
	}
}
