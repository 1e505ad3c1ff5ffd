package oldconsumer

import (
	"fmt"
	"sort"
	"sync"

	"github.com/zkafka/zkafka/clients/serialization"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// WildcardStreamsHandler consumes every topic a filter allows with numStreams streams shared by
// all of them, and rebalances when a matching topic appears or goes.
//
// Kafka 0.10.2: ZookeeperConsumerConnector.WildcardStreamsHandler (its typed streams are made
// by CreateMessageStreamsByFilterWithDecoders).
type WildcardStreamsHandler struct {
	c                  *ZookeeperConsumerConnector
	filter             TopicFilter
	queuesAndStreams   []queueAndStream
	wildcardTopicCount *WildcardTopicCount

	mu             sync.Mutex
	wildcardTopics []string
}

// CreateMessageStreamsByFilterWithDecoders subscribes c to every topic the filter allows (now
// and later) with numStreams streams, decoding with kd and vd.
func CreateMessageStreamsByFilterWithDecoders[K, V any](c *ZookeeperConsumerConnector, filter TopicFilter, numStreams int,
	kd serialization.Decoder[K], vd serialization.Decoder[V]) ([]*KafkaStream[K, V], error) {
	if c.messageStreamCreated.Swap(true) {
		return nil, fmt.Errorf("Each consumer connector can create message streams by filter at most once.")
	}
	if numStreams < 1 {
		return nil, fmt.Errorf("assertion failed: %d streams, at least 1 is needed", numStreams)
	}
	h := &WildcardStreamsHandler{c: c, filter: filter}
	streams := make([]*KafkaStream[K, V], numStreams)
	for i := range streams {
		q := newChunkQueue(c.config.QueuedMaxMessages)
		streams[i] = newKafkaStream(q, c.config.ConsumerTimeoutMs, kd, vd, c.config.ClientID, c.stats, c.baseLog)
		h.queuesAndStreams = append(h.queuesAndStreams, queueAndStream{queue: q, stream: streams[i]})
	}
	topics, err := c.zkUtils.GetChildrenParentMayNotExist(zkutils.BrokerTopicsPath)
	if err != nil {
		return nil, err
	}
	h.wildcardTopics = h.allowed(topics)
	h.wildcardTopicCount = NewWildcardTopicCount(c.zkUtils, c.consumerIDString, filter, int32(numStreams), c.config.ExcludeInternalTopics)
	if err := c.registerConsumerInZK(c.consumerIDString, h.wildcardTopicCount); err != nil {
		return nil, err
	}
	if err := c.reinitializeConsumer(h.wildcardTopicCount, h.queuesAndStreams); err != nil {
		return streams, err
	}
	c.log.Infof("Creating topic event watcher for topics %s", filter)
	w, err := NewZookeeperTopicEventWatcher(c.zkUtils, h, c.baseLog)
	if err != nil {
		return streams, err
	}
	c.mu.Lock()
	c.wildcardTopicWatcher = w
	c.mu.Unlock()
	return streams, nil
}

func (h *WildcardStreamsHandler) allowed(topics []string) []string {
	var out []string
	for _, t := range topics {
		if h.filter.IsTopicAllowed(t, h.c.config.ExcludeInternalTopics) {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// HandleTopicEvent implements TopicEventHandler: a matching topic appeared or went, so the
// consumer is reinitialised (and rebalanced).
func (h *WildcardStreamsHandler) HandleTopicEvent(allTopics []string) {
	c := h.c
	c.log.Debug("Handling topic event")
	updated := h.allowed(allTopics)
	h.mu.Lock()
	added := minus(updated, h.wildcardTopics)
	deleted := minus(h.wildcardTopics, updated)
	h.wildcardTopics = updated
	h.mu.Unlock()
	if len(added) > 0 {
		c.log.Infof("Topic event: added topics = %v", added)
	}
	if len(deleted) > 0 {
		c.log.Infof("Topic event: deleted topics = %v", deleted)
	}
	c.log.Infof("Topics to consume = %v", updated)
	if (len(added) > 0 || len(deleted) > 0) && !c.isShuttingDown.Load() {
		if err := c.reinitializeConsumer(h.wildcardTopicCount, h.queuesAndStreams); err != nil {
			c.log.WithError(err).Error("error in handling child changes")
		}
	}
}

func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}
