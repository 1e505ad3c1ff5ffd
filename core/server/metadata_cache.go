package server

import (
	"sort"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// node is one broker's address on one listener (org.apache.kafka.common.Node).
type node struct {
	id   int32
	host string
	port int32
	rack *string
}

// MetadataCache is the broker's copy of the cluster metadata the controller sends in
// UpdateMetadata: live brokers (with an address per listener), partition states and the
// controller id. Metadata requests are answered from it.
//
// Kafka 0.10.2: kafka.server.MetadataCache. partitionMetadataLock is a sync.RWMutex.
type MetadataCache struct {
	brokerID int32
	logger   *logrus.Entry

	mu           sync.RWMutex
	cache        map[string]map[int32]protocol.UpdateMetadataRequestPartitionState
	controllerID int32 // -1: none known
	aliveBrokers map[int32]cluster.Broker
	aliveNodes   map[int32]map[string]node // broker id -> listener name -> node
}

// NewMetadataCache makes an empty cache.
func NewMetadataCache(brokerID int32, logger *logrus.Entry) *MetadataCache {
	if logger == nil {
		logger = discardEntry()
	}
	return &MetadataCache{brokerID: brokerID, logger: logger.WithField("logger", "kafka.server.MetadataCache"),
		cache: map[string]map[int32]protocol.UpdateMetadataRequestPartitionState{}, controllerID: -1,
		aliveBrokers: map[int32]cluster.Broker{}, aliveNodes: map[int32]map[string]node{}}
}

// getEndpoints lists the nodes of the given brokers on listenerName. A broker that is not alive
// is left out when filterUnavailable (Metadata v0), else kept as an id with no address.
func (c *MetadataCache) getEndpoints(ids []int32, listenerName string, filterUnavailable bool) []int32 {
	out := make([]int32, 0, len(ids))
	for _, id := range ids {
		if nodes, ok := c.aliveNodes[id]; ok {
			if _, ok := nodes[listenerName]; ok {
				out = append(out, id)
				continue
			}
		}
		if !filterUnavailable {
			out = append(out, id)
		}
	}
	return out
}

func (c *MetadataCache) aliveEndpoint(id int32, listenerName string) bool {
	nodes, ok := c.aliveNodes[id]
	if !ok {
		return false
	}
	_, ok = nodes[listenerName]
	return ok
}

// getPartitionMetadata: caller holds mu for reading.
func (c *MetadataCache) getPartitionMetadata(topic, listenerName string, errorUnavailableEndpoints bool) []protocol.MetadataResponseTopicPartition {
	parts, ok := c.cache[topic]
	if !ok {
		return nil
	}
	ids := make([]int32, 0, len(parts))
	for id := range parts {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := make([]protocol.MetadataResponseTopicPartition, 0, len(ids))
	for _, id := range ids {
		st := parts[id]
		replicaInfo := c.getEndpoints(st.Replicas, listenerName, errorUnavailableEndpoints)
		pm := protocol.MetadataResponseTopicPartition{PartitionID: id, Replicas: replicaInfo}
		if !c.aliveEndpoint(st.Leader, listenerName) {
			c.logger.Debugf("Error while fetching metadata for %s-%d: leader not available", topic, id)
			pm.PartitionErrorCode = protocol.ErrLeaderNotAvailable.Code
			pm.Leader = -1
			pm.Isr = []int32{}
			out = append(out, pm)
			continue
		}
		isrInfo := c.getEndpoints(st.Isr, listenerName, errorUnavailableEndpoints)
		pm.Leader = st.Leader
		pm.Isr = isrInfo
		if len(replicaInfo) < len(st.Replicas) || len(isrInfo) < len(st.Isr) {
			pm.PartitionErrorCode = protocol.ErrReplicaNotAvailable.Code
		}
		out = append(out, pm)
	}
	return out
}

// GetTopicMetadata answers Metadata for the topics present in the cache (others are left out:
// KafkaApis decides about them). errorUnavailableEndpoints is true for Metadata v0.
func (c *MetadataCache) GetTopicMetadata(topics []string, listenerName string, errorUnavailableEndpoints bool) []protocol.MetadataResponseTopic {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]protocol.MetadataResponseTopic, 0, len(topics))
	for _, t := range topics {
		if _, ok := c.cache[t]; !ok {
			continue
		}
		out = append(out, protocol.MetadataResponseTopic{Topic: t, IsInternal: IsInternalTopic(t),
			PartitionMetadata: c.getPartitionMetadata(t, listenerName, errorUnavailableEndpoints)})
	}
	return out
}

// GetAllTopics lists every topic in the cache, sorted.
func (c *MetadataCache) GetAllTopics() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]string, 0, len(c.cache))
	for t := range c.cache {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// GetNonExistingTopics is the subset of topics not in the cache.
func (c *MetadataCache) GetNonExistingTopics(topics []string) []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []string
	for _, t := range topics {
		if _, ok := c.cache[t]; !ok {
			out = append(out, t)
		}
	}
	return out
}

// Contains reports whether the topic is known.
func (c *MetadataCache) Contains(topic string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.cache[topic]
	return ok
}

// GetAliveBrokers lists the live brokers by id.
func (c *MetadataCache) GetAliveBrokers() []cluster.Broker {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]cluster.Broker, 0, len(c.aliveBrokers))
	for _, b := range c.aliveBrokers {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// aliveNodesFor lists the live brokers' addresses on listenerName (Metadata's brokers array);
// a broker without that listener is left out.
func (c *MetadataCache) aliveNodesFor(listenerName string) []protocol.MetadataResponseBroker {
	c.mu.RLock()
	defer c.mu.RUnlock()
	ids := make([]int32, 0, len(c.aliveNodes))
	for id := range c.aliveNodes {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := make([]protocol.MetadataResponseBroker, 0, len(ids))
	for _, id := range ids {
		if n, ok := c.aliveNodes[id][listenerName]; ok {
			out = append(out, protocol.MetadataResponseBroker{NodeID: n.id, Host: n.host, Port: n.port, Rack: n.rack})
		}
	}
	return out
}

// IsBrokerAlive reports whether id is a live broker.
func (c *MetadataCache) IsBrokerAlive(id int32) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.aliveBrokers[id]
	return ok
}

// GetControllerID is the controller's id, or -1.
func (c *MetadataCache) GetControllerID() int32 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.controllerID
}

// GetPartitionInfo returns the cached state of a partition.
func (c *MetadataCache) GetPartitionInfo(topic string, partition int32) (protocol.UpdateMetadataRequestPartitionState, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	s, ok := c.cache[topic][partition]
	return s, ok
}

// UpdateCache replaces the live brokers and controller id and applies the partition states; a
// state whose leader is -2 (LeaderDuringDelete) removes the partition. It returns the removed
// partitions.
func (c *MetadataCache) UpdateCache(correlationID int32, req *protocol.UpdateMetadataRequest) []common.TopicPartition {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.controllerID = req.ControllerID
	if c.controllerID < 0 {
		c.controllerID = -1
	}
	c.aliveBrokers = map[int32]cluster.Broker{}
	c.aliveNodes = map[int32]map[string]node{}
	for _, b := range req.LiveBrokers {
		nodes := map[string]node{}
		broker := cluster.Broker{ID: b.ID, EndPoints: map[string]cluster.EndPoint{}, Rack: b.Rack}
		add := func(listener string, proto common.SecurityProtocol, host string, port int32) {
			broker.EndPoints[listener] = cluster.EndPoint{ListenerName: listener, SecurityProtocol: proto, Host: host, Port: port}
			nodes[listener] = node{id: b.ID, host: host, port: port, rack: b.Rack}
		}
		if req.Version == 0 {
			add("PLAINTEXT", common.PLAINTEXT, b.Host, b.Port)
		} else {
			for _, ep := range b.EndPoints {
				// SecurityProtocol.forId; in v1 and v2 the listener name is the protocol's name.
				proto := common.SecurityProtocol(ep.SecurityProtocolType)
				listener := ep.ListenerName
				if req.Version < 3 {
					listener = proto.String()
				}
				add(listener, proto, ep.Host, ep.Port)
			}
		}
		c.aliveBrokers[b.ID] = broker
		c.aliveNodes[b.ID] = nodes
	}
	var deleted []common.TopicPartition
	for _, s := range req.PartitionStates {
		if s.Leader == zkutils.LeaderDuringDelete {
			c.removePartitionInfo(s.Topic, s.Partition)
			deleted = append(deleted, common.TopicPartition{Topic: s.Topic, Partition: s.Partition})
			c.logger.Tracef("Broker %d deleted partition [%s,%d] from metadata cache in response to UpdateMetadata request sent by controller %d epoch %d with correlation id %d",
				c.brokerID, s.Topic, s.Partition, req.ControllerID, req.ControllerEpoch, correlationID)
			continue
		}
		if c.cache[s.Topic] == nil {
			c.cache[s.Topic] = map[int32]protocol.UpdateMetadataRequestPartitionState{}
		}
		c.cache[s.Topic][s.Partition] = s
	}
	return deleted
}

func (c *MetadataCache) removePartitionInfo(topic string, partition int32) {
	parts, ok := c.cache[topic]
	if !ok {
		return
	}
	delete(parts, partition)
	if len(parts) == 0 {
		delete(c.cache, topic)
	}
}
