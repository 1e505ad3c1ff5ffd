package cluster

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/zk/zkutils"
)

// EndPoint is one listener of a broker: a listener name, its security protocol, host and port.
//
// Kafka 0.10.2: kafka.cluster.EndPoint.
type EndPoint = zkutils.RegisteredEndPoint

// BrokerEndPoint is a broker reduced to one address (what LeaderAndIsr's live_leaders and the
// replica fetcher use).
//
// Kafka 0.10.2: kafka.cluster.BrokerEndPoint.
type BrokerEndPoint struct {
	ID   int32
	Host string
	Port int32
}

// ConnectionString is host:port.
func (b BrokerEndPoint) ConnectionString() string {
	return b.Host + ":" + strconv.Itoa(int(b.Port))
}

// String formats as BrokerEndPoint(id,host,port).
func (b BrokerEndPoint) String() string {
	return fmt.Sprintf("BrokerEndPoint(%d,%s,%d)", b.ID, b.Host, b.Port)
}

// Broker is a live broker: its id, its endpoints keyed by listener name, and its rack.
//
// Kafka 0.10.2: kafka.cluster.Broker.
type Broker struct {
	ID        int32
	EndPoints map[string]EndPoint // listener name -> endpoint
	Rack      *string
}

// NewBroker builds a Broker from its /brokers/ids registration.
func NewBroker(info zkutils.BrokerInfo) Broker {
	b := Broker{ID: info.ID, EndPoints: make(map[string]EndPoint, len(info.EndPoints))}
	for _, e := range info.EndPoints {
		b.EndPoints[e.ListenerName] = e
	}
	if info.Rack != "" {
		r := info.Rack
		b.Rack = &r
	}
	return b
}

// GetBrokerEndPoint is this broker's address on listenerName.
func (b Broker) GetBrokerEndPoint(listenerName string) (BrokerEndPoint, error) {
	e, ok := b.EndPoints[listenerName]
	if !ok {
		return BrokerEndPoint{}, fmt.Errorf("end point with listener name %s not found for broker %d", listenerName, b.ID)
	}
	return BrokerEndPoint{ID: b.ID, Host: e.Host, Port: e.Port}, nil
}

// String formats like Broker.toString: id : endpoints : rack.
func (b Broker) String() string {
	eps := make([]string, 0, len(b.EndPoints))
	for _, e := range b.EndPoints {
		eps = append(eps, e.ConnectionString())
	}
	sort.Strings(eps)
	rack := "null"
	if b.Rack != nil {
		rack = *b.Rack
	}
	return fmt.Sprintf("%d : (%s) : %s", b.ID, strings.Join(eps, ","), rack)
}
