package zkutils

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// LeaderAndIsr is a partition's leader, leader epoch and ISR, plus the znode
// version of the state node it was read from.
//
// Kafka 0.10.2: kafka.api.LeaderAndIsr.
type LeaderAndIsr struct {
	Leader      int32
	LeaderEpoch int32
	Isr         []int32
	ZkVersion   int32
}

// LeaderAndIsr constants (LeaderAndIsr companion object).
const (
	InitialLeaderEpoch int32 = 0
	InitialZKVersion   int32 = 0
	NoLeader           int32 = -1
	// LeaderDuringDelete is only ever sent in UpdateMetadata, never written to ZooKeeper.
	LeaderDuringDelete int32 = -2
)

// NewLeaderAndIsr is the two-argument constructor: epoch and zkVersion start at 0.
func NewLeaderAndIsr(leader int32, isr []int32) LeaderAndIsr {
	return LeaderAndIsr{Leader: leader, LeaderEpoch: InitialLeaderEpoch, Isr: isr, ZkVersion: InitialZKVersion}
}

// String is Kafka's toString: {"leader":1,"leader_epoch":0,"isr":[1,2]}.
func (l LeaderAndIsr) String() string {
	o := &jsonObject{}
	o.put("leader", l.Leader)
	o.put("leader_epoch", l.LeaderEpoch)
	o.put("isr", isrOrEmpty(l.Isr))
	return encodeJSON(o)
}

// Equal compares every field, as the Scala case class equality does.
func (l LeaderAndIsr) Equal(o LeaderAndIsr) bool {
	return l.Leader == o.Leader && l.LeaderEpoch == o.LeaderEpoch && l.ZkVersion == o.ZkVersion && slices.Equal(l.Isr, o.Isr)
}

// LeaderIsrAndControllerEpoch is the content of a partition state znode: the
// leadership decision and the epoch of the controller that made it.
//
// Kafka 0.10.2: kafka.controller.LeaderIsrAndControllerEpoch.
type LeaderIsrAndControllerEpoch struct {
	LeaderAndIsr    LeaderAndIsr
	ControllerEpoch int32
}

// Equal compares both parts.
func (l LeaderIsrAndControllerEpoch) Equal(o LeaderIsrAndControllerEpoch) bool {
	return l.ControllerEpoch == o.ControllerEpoch && l.LeaderAndIsr.Equal(o.LeaderAndIsr)
}

// String is Kafka's toString, used in state-change log lines.
func (l LeaderIsrAndControllerEpoch) String() string {
	isr := ""
	for i, r := range l.LeaderAndIsr.Isr {
		if i > 0 {
			isr += ","
		}
		isr += strconv.FormatInt(int64(r), 10)
	}
	return fmt.Sprintf("(Leader:%d,ISR:%s,LeaderEpoch:%d,ControllerEpoch:%d)",
		l.LeaderAndIsr.Leader, isr, l.LeaderAndIsr.LeaderEpoch, l.ControllerEpoch)
}

func isrOrEmpty(isr []int32) []int32 {
	if isr == nil {
		return []int32{}
	}
	return isr
}

// LeaderAndIsrZkData is the JSON of /brokers/topics/<t>/partitions/<p>/state,
// e.g. {"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}
// (a five-entry immutable Scala map, hence the order).
//
// Kafka 0.10.2: ZkUtils.leaderAndIsrZkData.
func LeaderAndIsrZkData(l LeaderAndIsr, controllerEpoch int32) []byte {
	o := &jsonObject{}
	o.put("version", 1)
	o.put("leader", l.Leader)
	o.put("leader_epoch", l.LeaderEpoch)
	o.put("controller_epoch", controllerEpoch)
	o.put("isr", isrOrEmpty(l.Isr))
	return []byte(encodeJSON(o.scalaImmutable()))
}

type leaderAndIsrJSON struct {
	Leader          *int32  `json:"leader"`
	LeaderEpoch     *int32  `json:"leader_epoch"`
	Isr             []int32 `json:"isr"`
	ControllerEpoch *int32  `json:"controller_epoch"`
}

// DecodeLeaderIsrAndControllerEpoch parses a state znode; zkVersion is the
// znode's version, recorded in the result (ReplicationUtils.parseLeaderAndIsr).
func DecodeLeaderIsrAndControllerEpoch(data []byte, zkVersion int32) (LeaderIsrAndControllerEpoch, error) {
	var j leaderAndIsrJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return LeaderIsrAndControllerEpoch{}, fmt.Errorf("invalid leader and isr json %q: %w", data, err)
	}
	if j.Leader == nil || j.LeaderEpoch == nil || j.Isr == nil || j.ControllerEpoch == nil {
		return LeaderIsrAndControllerEpoch{}, fmt.Errorf("invalid leader and isr json %q: missing field", data)
	}
	return LeaderIsrAndControllerEpoch{
		LeaderAndIsr:    LeaderAndIsr{Leader: *j.Leader, LeaderEpoch: *j.LeaderEpoch, Isr: j.Isr, ZkVersion: zkVersion},
		ControllerEpoch: *j.ControllerEpoch,
	}, nil
}
