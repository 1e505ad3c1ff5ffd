package clients

import (
	"math"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// metadataRequestVersion is the Metadata version the Java clients of 0.10.2 send (v1+ only:
// v0 cannot say "all topics" and "no topics" apart).
const metadataRequestVersion = 2

// DefaultMetadataUpdater keeps a Metadata current by sending Metadata requests to the least
// loaded node whenever an update is due (requested, or metadata.max.age.ms old), at most one at
// a time.
//
// Kafka 0.10.2: NetworkClient.DefaultMetadataUpdater (an inner class there, with access to the
// client's connection states; here a type holding its client).
type DefaultMetadataUpdater struct {
	client                  *NetworkClient
	metadata                *Metadata
	metadataFetchInProgress bool
}

// Metadata is the metadata kept current.
func (u *DefaultMetadataUpdater) Metadata() *Metadata { return u.metadata }

// FetchNodes implements MetadataUpdater.
func (u *DefaultMetadataUpdater) FetchNodes() []common.Node { return u.metadata.Fetch().Nodes() }

// IsUpdateDue implements MetadataUpdater.
func (u *DefaultMetadataUpdater) IsUpdateDue(nowMs int64) bool {
	return !u.metadataFetchInProgress && u.metadata.TimeToNextUpdate(nowMs) == 0
}

// MaybeUpdate implements MetadataUpdater.
func (u *DefaultMetadataUpdater) MaybeUpdate(nowMs int64) int64 {
	timeToNext := u.metadata.TimeToNextUpdate(nowMs)
	var waitForFetch int64
	if u.metadataFetchInProgress {
		waitForFetch = u.client.cfg.RequestTimeoutMs
	}
	if t := max(timeToNext, waitForFetch); t > 0 {
		return t
	}
	node := u.client.LeastLoadedNode(nowMs)
	if node == nil {
		u.client.log.Debugf("Give up sending metadata request since no node is available")
		return u.client.cfg.ReconnectBackoffMs
	}
	return u.maybeUpdateNode(nowMs, *node)
}

func (u *DefaultMetadataUpdater) maybeUpdateNode(nowMs int64, node common.Node) int64 {
	id := node.IDString()
	c := u.client
	if c.canSendRequest(id) {
		u.metadataFetchInProgress = true
		req := &protocol.MetadataRequest{Version: metadataRequestVersion}
		if !u.metadata.NeedMetadataForAllTopics() {
			req.Topics = append([]string{}, u.metadata.Topics()...)
		}
		c.log.Debugf("Sending metadata request {topics=%v} to node %d", req.Topics, node.ID)
		_ = c.doSend(c.NewClientRequest(id, req, nowMs, true, nil), true, nowMs)
		return c.cfg.RequestTimeoutMs
	}
	if u.isAnyNodeConnecting() {
		return c.cfg.ReconnectBackoffMs
	}
	if c.connectionStates.CanConnect(id, nowMs) {
		c.log.Debugf("Initialize connection to node %d for sending metadata request", node.ID)
		c.initiateConnect(node, nowMs)
		return c.cfg.ReconnectBackoffMs
	}
	return math.MaxInt64
}

func (u *DefaultMetadataUpdater) isAnyNodeConnecting() bool {
	for _, n := range u.FetchNodes() {
		if u.client.connectionStates.IsConnecting(n.IDString()) {
			return true
		}
	}
	return false
}

// HandleDisconnection implements MetadataUpdater.
func (u *DefaultMetadataUpdater) HandleDisconnection(destination string) {
	cluster := u.metadata.Fetch()
	if cluster.IsBootstrapConfigured() {
		for _, n := range cluster.Nodes() {
			if n.IDString() == destination {
				u.client.log.Warnf("Bootstrap broker %s:%d disconnected", n.Host, n.Port)
			}
		}
	}
	u.metadataFetchInProgress = false
}

// HandleCompletedMetadataResponse implements MetadataUpdater: a response without brokers is
// ignored (a failed update, retried after the backoff), as Kafka does.
func (u *DefaultMetadataUpdater) HandleCompletedMetadataResponse(h protocol.RequestHeader, nowMs int64, r *protocol.MetadataResponse) {
	u.metadataFetchInProgress = false
	cluster := ClusterFromMetadataResponse(r)
	if errs := MetadataErrors(r); len(errs) > 0 {
		u.client.log.Warnf("Error while fetching metadata with correlation id %d : %s", h.CorrelationID, formatTopicErrors(errs))
	}
	if len(cluster.Nodes()) > 0 {
		u.metadata.Update(cluster, UnavailableTopics(r), nowMs)
	} else {
		u.client.log.Tracef("Ignoring empty metadata response with correlation id %d.", h.CorrelationID)
		u.metadata.FailedUpdate(nowMs)
	}
}

// RequestUpdate implements MetadataUpdater.
func (u *DefaultMetadataUpdater) RequestUpdate() { u.metadata.RequestUpdate() }

// formatTopicErrors renders topic errors as Java's Map.toString: {t1=LEADER_NOT_AVAILABLE}.
func formatTopicErrors(errs map[string]error) string {
	s := "{"
	first := true
	for _, t := range sortedTopics(errs) {
		if !first {
			s += ", "
		}
		first = false
		name := errs[t].Error()
		if ke, ok := errs[t].(*protocol.Error); ok {
			name = ke.Name
		}
		s += t + "=" + name
	}
	return s + "}"
}
