package server

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/zkafka/zkafka/zk/zkutils"
)

// Mixed settings of zkafka.leader.epoch.truncation.enable are refused at startup. A broker with
// the mode on sends OffsetsForLeaderEpoch to its leaders and no longer truncates to its high
// watermark; a leader with the mode off closes the connection on that unknown key, and its log has
// no epoch history to answer from, so neither side can fall back safely without a protocol of its
// own. Instead every broker writes its setting to /zkafka/brokers/<id> and compares it with the
// setting of every live broker (/brokers/ids), before and again after registering itself: the
// second check catches two brokers with different settings starting at the same moment (then
// both refuse). A live broker without a marker (a Kafka 0.10.2 broker) counts as off.

// ZkafkaBrokersPath holds one persistent node per broker with the zkafka extensions it runs (a
// zkafka addition to Kafka 0.10.2's znodes; docs/deviations.md).
const ZkafkaBrokersPath = "/zkafka/brokers"

// ZkafkaBrokerPath is /zkafka/brokers/<id>.
func ZkafkaBrokerPath(id int32) string { return ZkafkaBrokersPath + "/" + strconv.Itoa(int(id)) }

// zkafkaBrokerMarker is the JSON of /zkafka/brokers/<id>.
type zkafkaBrokerMarker struct {
	Version                     int  `json:"version"`
	LeaderEpochTruncationEnable bool `json:"leader.epoch.truncation.enable"`
}

// ZkafkaBrokerMarkerData is the marker a broker with the given setting writes.
func ZkafkaBrokerMarkerData(leaderEpochTruncation bool) []byte {
	b, _ := json.Marshal(zkafkaBrokerMarker{Version: 1, LeaderEpochTruncationEnable: leaderEpochTruncation})
	return b
}

// registerZkafkaBrokerMarker writes this broker's marker (overwriting the previous run's).
func (s *KafkaServer) registerZkafkaBrokerMarker() error {
	return s.zkUtils.UpdatePersistentPath(ZkafkaBrokerPath(s.config.BrokerID),
		ZkafkaBrokerMarkerData(s.config.LeaderEpochTruncationEnable))
}

// checkLeaderEpochTruncationAgreement fails when a live broker runs with the other setting of
// zkafka.leader.epoch.truncation.enable.
func (s *KafkaServer) checkLeaderEpochTruncationAgreement() error {
	return checkLeaderEpochTruncationAgreement(s.zkUtils, s.config.BrokerID, s.config.LeaderEpochTruncationEnable)
}

func checkLeaderEpochTruncationAgreement(z *zkutils.ZkUtils, self int32, mine bool) error {
	live, err := z.GetChildrenParentMayNotExist(zkutils.BrokerIdsPath)
	if err != nil {
		return err
	}
	for _, child := range live {
		id, err := strconv.ParseInt(child, 10, 32)
		if err != nil || int32(id) == self {
			continue
		}
		theirs := false
		data, _, exists, err := z.ReadDataMaybeNull(ZkafkaBrokerPath(int32(id)))
		if err != nil {
			return err
		}
		if exists {
			var m zkafkaBrokerMarker
			if err := json.Unmarshal(data, &m); err != nil {
				return fmt.Errorf("%s holds %q: %w", ZkafkaBrokerPath(int32(id)), data, err)
			}
			theirs = m.LeaderEpochTruncationEnable
		}
		if theirs != mine {
			return fmt.Errorf("broker %d runs with %s=%t and this broker has %t: every broker of a cluster must have the same "+
				"value (stop them all, change it everywhere, start them again)", id, LeaderEpochTruncationEnableProp, theirs, mine)
		}
	}
	return nil
}
