package clients

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// TopicExpiryMs is how long a producer keeps a topic it no longer sends to in its metadata.
//
// Kafka 0.10.2: Metadata.TOPIC_EXPIRY_MS.
const TopicExpiryMs = 5 * 60 * 1000

const topicExpiryNeedsUpdate = -1

// ErrMetadataClosed is returned by AwaitUpdate once the Metadata is closed (its client shut
// down), so that nobody waits for an update that cannot come.
var ErrMetadataClosed = errors.New("Requested metadata update after close")

// MetadataListener is told of every successful update.
//
// Kafka 0.10.2: Metadata.Listener.
type MetadataListener func(cluster *common.Cluster, unavailableTopics []string)

// Metadata is the client's view of the cluster, shared by the user's goroutines (which add
// topics, request updates and wait for them) and the goroutine driving the NetworkClient (which
// fetches them): the current Cluster, a version bumped by each update, the topics of interest
// (with an expiry for the producer's), and when to refresh (metadata.max.age.ms after the last
// success, at once when an update is requested, never sooner than retry.backoff.ms after the
// last attempt).
//
// Kafka 0.10.2: org.apache.kafka.clients.Metadata (synchronized methods and wait/notifyAll
// become a mutex and a channel closed on every update).
type Metadata struct {
	refreshBackoffMs   int64
	metadataExpireMs   int64
	topicExpiryEnabled bool
	log                *logrus.Entry

	mu                       sync.Mutex
	version                  int
	lastRefreshMs            int64
	lastSuccessfulRefreshMs  int64
	cluster                  *common.Cluster
	needUpdate               bool
	topics                   map[string]int64 // topic -> expiry time (or topicExpiryNeedsUpdate)
	listeners                []MetadataListener
	needMetadataForAllTopics bool
	updated                  chan struct{} // closed and replaced by every update
	closed                   bool
}

// NewMetadata uses retry.backoff.ms and metadata.max.age.ms; the producer enables topic expiry.
func NewMetadata(refreshBackoffMs, metadataExpireMs int64, topicExpiryEnabled bool, log *logrus.Entry) *Metadata {
	if log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		log = logrus.NewEntry(l)
	}
	return &Metadata{refreshBackoffMs: refreshBackoffMs, metadataExpireMs: metadataExpireMs,
		topicExpiryEnabled: topicExpiryEnabled, log: log.WithField("logger", "org.apache.kafka.clients.Metadata"),
		cluster: common.EmptyCluster(), topics: map[string]int64{}, updated: make(chan struct{})}
}

// Fetch is the current cluster snapshot.
func (m *Metadata) Fetch() *common.Cluster {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cluster
}

// Add adds topic to the topics of interest (resetting its expiry); a new topic asks for an
// update at once, regardless of the backoff.
func (m *Metadata) Add(topic string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.topics[topic]; !ok {
		m.requestUpdateForNewTopicsLocked()
	}
	m.topics[topic] = topicExpiryNeedsUpdate
}

// TimeToNextUpdate is how long until the next update is due: 0 when requested or expired, but
// never before the backoff since the last attempt has passed.
func (m *Metadata) TimeToNextUpdate(nowMs int64) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var toExpire int64
	if !m.needUpdate {
		toExpire = max(m.lastSuccessfulRefreshMs+m.metadataExpireMs-nowMs, 0)
	}
	toAllow := m.lastRefreshMs + m.refreshBackoffMs - nowMs
	return max(toExpire, toAllow)
}

// RequestUpdate asks for an update as soon as the backoff allows, and returns the current
// version to wait past.
func (m *Metadata) RequestUpdate() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.needUpdate = true
	return m.version
}

// UpdateRequested reports a pending request.
func (m *Metadata) UpdateRequested() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.needUpdate
}

// AwaitUpdate waits until the version is above lastVersion, for at most maxWaitMs; after that
// it fails with Kafka's TimeoutException message.
func (m *Metadata) AwaitUpdate(lastVersion int, maxWaitMs int64) error {
	if maxWaitMs < 0 {
		return errors.New("Max time to wait for metadata updates should not be < 0 milli seconds")
	}
	deadline := time.Now().Add(MillisToDuration(maxWaitMs))
	var timer *time.Timer
	for {
		m.mu.Lock()
		version, closed, updated := m.version, m.closed, m.updated
		m.mu.Unlock()
		if version > lastVersion {
			return nil
		}
		if closed {
			return ErrMetadataClosed
		}
		remaining := time.Until(deadline)
		if remaining <= 0 {
			return protocol.Errorf(protocol.ErrRequestTimedOut, "Failed to update metadata after %d ms.", maxWaitMs)
		}
		if timer == nil {
			timer = time.NewTimer(remaining)
			defer timer.Stop()
		} else {
			timer.Reset(remaining)
		}
		select {
		case <-updated:
		case <-timer.C:
		}
	}
}

// SetTopics replaces the topics of interest (the consumer's subscription).
func (m *Metadata) SetTopics(topics []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range topics {
		if _, ok := m.topics[t]; !ok {
			m.requestUpdateForNewTopicsLocked()
			break
		}
	}
	m.topics = make(map[string]int64, len(topics))
	for _, t := range topics {
		m.topics[t] = topicExpiryNeedsUpdate
	}
}

// Topics are the topics of interest, sorted.
func (m *Metadata) Topics() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.topics))
	for t := range m.topics {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// ContainsTopic reports a topic of interest.
func (m *Metadata) ContainsTopic(topic string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.topics[topic]
	return ok
}

// Update installs a new snapshot at nowMs: the version goes up, topics the producer has not
// used for TopicExpiryMs are dropped, listeners are told, and waiters wake up.
func (m *Metadata) Update(cluster *common.Cluster, unavailableTopics []string, nowMs int64) {
	m.mu.Lock()
	m.needUpdate = false
	m.lastRefreshMs = nowMs
	m.lastSuccessfulRefreshMs = nowMs
	m.version++
	if m.topicExpiryEnabled {
		for t, exp := range m.topics {
			switch {
			case exp == topicExpiryNeedsUpdate:
				m.topics[t] = nowMs + TopicExpiryMs
			case exp <= nowMs:
				delete(m.topics, t)
				m.log.Debugf("Removing unused topic %s from the metadata list, expiryMs %d now %d", t, exp, nowMs)
			}
		}
	}
	listeners := append([]MetadataListener(nil), m.listeners...)
	previousID := m.cluster.ClusterID()
	if m.needMetadataForAllTopics {
		m.cluster = m.clusterForCurrentTopicsLocked(cluster)
	} else {
		m.cluster = cluster
	}
	if !cluster.IsBootstrapConfigured() && cluster.ClusterID() != previousID {
		m.log.Infof("Cluster ID: %s", cluster.ClusterID())
	}
	close(m.updated)
	m.updated = make(chan struct{})
	version := m.version
	m.mu.Unlock()
	for _, l := range listeners {
		l(cluster, unavailableTopics)
	}
	m.log.Debugf("Updated cluster metadata version %d to %s", version, cluster)
}

// FailedUpdate records a failed attempt (the backoff starts again).
func (m *Metadata) FailedUpdate(nowMs int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lastRefreshMs = nowMs
}

// Version is the number of updates so far.
func (m *Metadata) Version() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.version
}

// LastSuccessfulUpdate is when the last update succeeded.
func (m *Metadata) LastSuccessfulUpdate() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lastSuccessfulRefreshMs
}

// SetNeedMetadataForAllTopics makes the client ask for every topic (a pattern subscription)
// and keep only the topics of interest in its snapshot.
func (m *Metadata) SetNeedMetadataForAllTopics(all bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if all && !m.needMetadataForAllTopics {
		m.requestUpdateForNewTopicsLocked()
	}
	m.needMetadataForAllTopics = all
}

// NeedMetadataForAllTopics reports whether every topic is asked for.
func (m *Metadata) NeedMetadataForAllTopics() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.needMetadataForAllTopics
}

// AddListener adds a listener.
func (m *Metadata) AddListener(l MetadataListener) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.listeners = append(m.listeners, l)
}

// Close makes every AwaitUpdate (present and future) fail with ErrMetadataClosed.
func (m *Metadata) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		m.closed = true
		close(m.updated)
		m.updated = make(chan struct{})
	}
}

func (m *Metadata) requestUpdateForNewTopicsLocked() {
	m.lastRefreshMs = 0
	m.needUpdate = true
}

func (m *Metadata) clusterForCurrentTopicsLocked(c *common.Cluster) *common.Cluster {
	var parts []common.PartitionInfo
	for t := range m.topics {
		parts = append(parts, c.PartitionsForTopic(t)...)
	}
	var unauthorized []string
	for _, t := range c.UnauthorizedTopics() {
		if _, ok := m.topics[t]; ok {
			unauthorized = append(unauthorized, t)
		}
	}
	return common.NewCluster(c.ClusterID(), c.Nodes(), parts, unauthorized, c.InternalTopics())
}

// String describes the metadata for logs.
func (m *Metadata) String() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fmt.Sprintf("Metadata(version=%d, cluster=%s)", m.version, m.cluster)
}

// MillisToDuration is ms milliseconds as a Duration, saturating at the largest Duration, so that
// Long.MAX_VALUE (MirrorMaker's max.block.ms, "wait for ever") does not overflow.
func MillisToDuration(ms int64) time.Duration {
	if ms > math.MaxInt64/int64(time.Millisecond) {
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}
