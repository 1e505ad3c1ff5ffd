package common

import (
	"fmt"
	"math/rand/v2"
	"net"
	"sort"
	"strconv"
	"strings"
)

// Cluster is an immutable snapshot of the cluster's metadata as a client saw it in one metadata
// response: the brokers, every known partition with its leader, and indexes by topic, by
// partition and by leader. Metadata swaps in a new Cluster on every update; readers hold on to
// the one they fetched.
//
// Kafka 0.10.2: org.apache.kafka.common.Cluster.
type Cluster struct {
	clusterID             string
	isBootstrapConfigured bool
	nodes                 []Node
	nodesByID             map[int32]Node
	unauthorizedTopics    map[string]struct{}
	internalTopics        map[string]struct{}
	byTopicPartition      map[TopicPartition]*PartitionInfo
	byTopic               map[string][]PartitionInfo
	availableByTopic      map[string][]PartitionInfo
	byNode                map[int32][]PartitionInfo
}

// NewCluster builds a snapshot. The node list is shuffled, as Kafka does, so that clients
// spread their first connections (leastLoadedNode walks it from a random offset too).
//
// Kafka 0.10.2: new Cluster(clusterId, nodes, partitions, unauthorizedTopics, internalTopics).
func NewCluster(clusterID string, nodes []Node, partitions []PartitionInfo, unauthorizedTopics, internalTopics []string) *Cluster {
	return newCluster(clusterID, false, nodes, partitions, unauthorizedTopics, internalTopics)
}

func newCluster(clusterID string, bootstrap bool, nodes []Node, partitions []PartitionInfo, unauthorized, internal []string) *Cluster {
	c := &Cluster{
		clusterID:             clusterID,
		isBootstrapConfigured: bootstrap,
		nodes:                 append([]Node(nil), nodes...),
		nodesByID:             make(map[int32]Node, len(nodes)),
		unauthorizedTopics:    toSet(unauthorized),
		internalTopics:        toSet(internal),
		byTopicPartition:      make(map[TopicPartition]*PartitionInfo, len(partitions)),
		byTopic:               map[string][]PartitionInfo{},
		availableByTopic:      map[string][]PartitionInfo{},
		byNode:                make(map[int32][]PartitionInfo, len(nodes)),
	}
	rand.Shuffle(len(c.nodes), func(i, j int) { c.nodes[i], c.nodes[j] = c.nodes[j], c.nodes[i] })
	for _, n := range c.nodes {
		c.nodesByID[n.ID] = n
		c.byNode[n.ID] = nil
	}
	parts := append([]PartitionInfo(nil), partitions...)
	for i := range parts {
		p := &parts[i]
		c.byTopicPartition[TopicPartition{Topic: p.Topic, Partition: p.Partition}] = p
		c.byTopic[p.Topic] = append(c.byTopic[p.Topic], *p)
		if _, ok := c.availableByTopic[p.Topic]; !ok {
			c.availableByTopic[p.Topic] = []PartitionInfo{}
		}
		if p.Leader != nil {
			c.availableByTopic[p.Topic] = append(c.availableByTopic[p.Topic], *p)
			c.byNode[p.Leader.ID] = append(c.byNode[p.Leader.ID], *p)
		}
	}
	return c
}

func toSet(s []string) map[string]struct{} {
	m := make(map[string]struct{}, len(s))
	for _, v := range s {
		m[v] = struct{}{}
	}
	return m
}

// EmptyCluster is Cluster.empty(): no nodes, no partitions.
func EmptyCluster() *Cluster { return newCluster("", false, nil, nil, nil, nil) }

// BootstrapCluster is Cluster.bootstrap(addresses): one node per address, with ids -1, -2, ...,
// and no partitions. addresses are host:port strings already validated by the caller.
func BootstrapCluster(addresses []string) *Cluster {
	nodes := make([]Node, 0, len(addresses))
	id := int32(-1)
	for _, a := range addresses {
		host, port, err := net.SplitHostPort(a)
		if err != nil {
			continue
		}
		p, err := strconv.Atoi(port)
		if err != nil {
			continue
		}
		nodes = append(nodes, Node{ID: id, Host: host, Port: int32(p)})
		id--
	}
	return newCluster("", true, nodes, nil, nil, nil)
}

// WithPartitions returns a copy with partitions added or replaced.
//
// Kafka 0.10.2: Cluster.withPartitions.
func (c *Cluster) WithPartitions(partitions []PartitionInfo) *Cluster {
	combined := make(map[TopicPartition]PartitionInfo, len(c.byTopicPartition)+len(partitions))
	for tp, p := range c.byTopicPartition {
		combined[tp] = *p
	}
	for _, p := range partitions {
		combined[TopicPartition{Topic: p.Topic, Partition: p.Partition}] = p
	}
	all := make([]PartitionInfo, 0, len(combined))
	for _, p := range combined {
		all = append(all, p)
	}
	return newCluster(c.clusterID, false, c.nodes, all, keys(c.unauthorizedTopics), keys(c.internalTopics))
}

func keys(m map[string]struct{}) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Nodes are the brokers, in the shuffled order of this snapshot.
func (c *Cluster) Nodes() []Node { return c.nodes }

// NodeByID returns the broker with id.
func (c *Cluster) NodeByID(id int32) (Node, bool) { n, ok := c.nodesByID[id]; return n, ok }

// LeaderFor is the leader of tp, nil when tp is unknown or has no leader.
func (c *Cluster) LeaderFor(tp TopicPartition) *Node {
	if p := c.byTopicPartition[tp]; p != nil {
		return p.Leader
	}
	return nil
}

// Partition is what the snapshot knows of tp.
func (c *Cluster) Partition(tp TopicPartition) (PartitionInfo, bool) {
	if p := c.byTopicPartition[tp]; p != nil {
		return *p, true
	}
	return PartitionInfo{}, false
}

// PartitionsForTopic lists the topic's partitions (nil when the topic is unknown), in the order
// of the metadata response.
func (c *Cluster) PartitionsForTopic(topic string) []PartitionInfo { return c.byTopic[topic] }

// PartitionCountForTopic is the number of partitions of topic; ok is false when it is unknown.
func (c *Cluster) PartitionCountForTopic(topic string) (n int, ok bool) {
	p, ok := c.byTopic[topic]
	return len(p), ok
}

// AvailablePartitionsForTopic lists the partitions of topic that have a leader.
func (c *Cluster) AvailablePartitionsForTopic(topic string) []PartitionInfo {
	return c.availableByTopic[topic]
}

// PartitionsForNode lists the partitions whose leader is node id.
func (c *Cluster) PartitionsForNode(id int32) []PartitionInfo { return c.byNode[id] }

// Topics are the topics the snapshot has partitions for, sorted.
func (c *Cluster) Topics() []string {
	out := make([]string, 0, len(c.byTopic))
	for t := range c.byTopic {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// IsUnauthorized reports a topic the metadata response denied (TOPIC_AUTHORIZATION_FAILED).
func (c *Cluster) IsUnauthorized(topic string) bool { _, ok := c.unauthorizedTopics[topic]; return ok }

// UnauthorizedTopics lists the denied topics, sorted.
func (c *Cluster) UnauthorizedTopics() []string { return keys(c.unauthorizedTopics) }

// InternalTopics lists the internal topics (__consumer_offsets), sorted.
func (c *Cluster) InternalTopics() []string { return keys(c.internalTopics) }

// IsBootstrapConfigured reports the snapshot made from bootstrap.servers.
func (c *Cluster) IsBootstrapConfigured() bool { return c.isBootstrapConfigured }

// ClusterID is the cluster id of the metadata response (v2), "" when unknown.
//
// Kafka 0.10.2: Cluster.clusterResource().clusterId().
func (c *Cluster) ClusterID() string { return c.clusterID }

// String renders the snapshot as Kafka's Cluster.toString does (partitions sorted).
func (c *Cluster) String() string {
	nodes := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		nodes[i] = n.String()
	}
	parts := make([]string, 0, len(c.byTopicPartition))
	for _, p := range c.byTopicPartition {
		parts = append(parts, p.String())
	}
	sort.Strings(parts)
	id := c.clusterID
	if id == "" {
		id = "null"
	}
	return fmt.Sprintf("Cluster(id = %s, nodes = [%s], partitions = [%s])", id, strings.Join(nodes, ", "), strings.Join(parts, ", "))
}
