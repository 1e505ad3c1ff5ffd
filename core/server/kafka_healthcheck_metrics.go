package server

import (
	"strings"
	"time"

	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/zk/zkclient"
)

// sessionStateEventTypes names the meter of each ZooKeeper connection state the broker counts:
// ZooKeeper<event>PerSec, with the event type in lower case.
var sessionStateEventTypes = map[zkclient.KeeperState]string{
	zkclient.Disconnected:      "Disconnects",
	zkclient.SyncConnected:     "SyncConnects",
	zkclient.AuthFailed:        "AuthFailures",
	zkclient.ConnectedReadOnly: "ReadOnlyConnects",
	zkclient.SaslAuthenticated: "SaslAuthentications",
	zkclient.Expired:           "Expires",
}

// RegisterMetrics registers the six kafka.server:type=SessionExpireListener meters
// (ZooKeeperDisconnectsPerSec, …, ZooKeeperExpiresPerSec), marked each time the broker's
// ZooKeeper connection enters that state. A nil registry registers nothing. States seen before
// the call are not counted.
//
// Kafka 0.10.2: KafkaHealthcheck.SessionExpireListener.stateToMeterMap.
func (h *KafkaHealthcheck) RegisterMetrics(reg *metrics.Registry) {
	if reg == nil {
		return
	}
	g := metrics.NewKafkaMetricsGroup(reg, "kafka.server", "SessionExpireListener")
	m := make(map[zkclient.KeeperState]*metrics.Meter, len(sessionStateEventTypes))
	for state, event := range sessionStateEventTypes {
		m[state] = g.NewMeter("ZooKeeper"+event+"PerSec", strings.ToLower(event), time.Second)
	}
	h.stateMeters.Store(&m)
}

// markState counts a connection state change on its meter, if it has one.
func (h *KafkaHealthcheck) markState(state zkclient.KeeperState) {
	if m := h.stateMeters.Load(); m != nil {
		if meter, ok := (*m)[state]; ok {
			meter.Mark(1)
		}
	}
}
