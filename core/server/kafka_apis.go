package server

import (
	"fmt"
	"runtime/debug"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/security/auth"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// Controller is what KafkaApis needs from the controller. A nil Controller is a broker
// that is never the controller: CreateTopics and DeleteTopics answer NOT_CONTROLLER and
// ControlledShutdown fails with NOT_CONTROLLER, as a 0.10.2 broker that is not the active
// controller answers.
type Controller interface {
	IsActive() bool
}

// ResponseChannel is the part of network.RequestChannel that KafkaApis answers through
// (*network.RequestChannel satisfies it; tests record the responses).
type ResponseChannel interface {
	SendResponse(r *network.Response)
	NoOperation(r *network.Request)
	CloseConnection(r *network.Request)
}

// KafkaApis handles every request: it dispatches on the API key, runs the handler and sends
// the response; a handler that fails answers with the request's error response (the error's
// code on every partition) instead.
//
// Kafka 0.10.2: kafka.server.KafkaApis. Without an authorizer (authorizer.class.name empty) every
// request is authorized.
type KafkaApis struct {
	requestChannel ResponseChannel
	replicaManager *ReplicaManager
	zkUtils        *zkutils.ZkUtils
	brokerID       int32
	config         *config.KafkaConfig
	metadataCache  *MetadataCache
	controller     Controller
	coordinator    GroupCoordinator
	adminManager   *AdminManager
	clusterID      string
	quotas         *QuotaManagers
	authorizer     auth.Authorizer // nil: everything is authorized
	logger         *logrus.Entry
	requestLogger  *logrus.Entry
}

// KafkaApisConfig gathers KafkaApis' dependencies.
type KafkaApisConfig struct {
	RequestChannel ResponseChannel
	ReplicaManager *ReplicaManager
	ZkUtils        *zkutils.ZkUtils
	BrokerID       int32
	Config         *config.KafkaConfig
	MetadataCache  *MetadataCache
	Controller     Controller       // nil: a broker that is never the controller
	Coordinator    GroupCoordinator // nil: group APIs answer GROUP_COORDINATOR_NOT_AVAILABLE
	AdminManager   *AdminManager    // nil: CreateTopics and DeleteTopics answer NOT_CONTROLLER
	ClusterID      string
	Quotas         *QuotaManagers  // nil: no client quotas nor replication throttles
	Authorizer     auth.Authorizer // nil: every request is authorized
	Logger         *logrus.Entry
	RequestLogger  *logrus.Entry // kafka.request.logger
}

// NewKafkaApis makes the handler.
func NewKafkaApis(c KafkaApisConfig) *KafkaApis {
	if c.Logger == nil {
		c.Logger = discardEntry()
	}
	if c.RequestLogger == nil {
		c.RequestLogger = c.Logger.WithField("logger", "kafka.request.logger")
	}
	return &KafkaApis{requestChannel: c.RequestChannel, replicaManager: c.ReplicaManager, zkUtils: c.ZkUtils,
		brokerID: c.BrokerID, config: c.Config, metadataCache: c.MetadataCache, controller: c.Controller,
		coordinator: c.Coordinator, adminManager: c.AdminManager, clusterID: c.ClusterID, quotas: c.Quotas,
		authorizer:    c.Authorizer,
		logger:        c.Logger.WithField("logger", "kafka.server.KafkaApis").WithField("ident", fmt.Sprintf("[KafkaApi-%d] ", c.BrokerID)),
		requestLogger: c.RequestLogger}
}

// Handle dispatches one request. A handler error (or panic) becomes the request's error response.
func (a *KafkaApis) Handle(req *network.Request) {
	defer req.MarkAPILocalComplete() // RequestMetrics LocalTimeMs ends here (Kafka's finally)
	defer func() {
		if r := recover(); r != nil {
			err := fmt.Errorf("%w: panic: %v", protocol.ErrUnknown, r)
			a.logger.Errorf("Error when handling request %s: panic: %v\n%s", describe(req), r, debug.Stack())
			a.handleError(req, err)
		}
	}()
	a.requestLogger.Tracef("Handling request:%s from connection %s;securityProtocol:%s,principal:%s",
		describe(req), req.ConnectionID, req.ListenerName, req.Session.Principal)
	var err error
	switch req.Header.ApiKey {
	case protocol.Produce:
		err = a.handleProducerRequest(req)
	case protocol.Fetch:
		err = a.handleFetchRequest(req)
	case protocol.ListOffsets:
		err = a.handleOffsetRequest(req)
	case protocol.Metadata:
		err = a.handleTopicMetadataRequest(req)
	case protocol.LeaderAndIsr:
		err = a.handleLeaderAndIsrRequest(req)
	case protocol.StopReplica:
		err = a.handleStopReplicaRequest(req)
	case protocol.UpdateMetadata:
		err = a.handleUpdateMetadataRequest(req)
	case protocol.ControlledShutdown:
		err = a.handleControlledShutdownRequest(req)
	case protocol.OffsetCommit:
		err = a.handleOffsetCommitRequest(req)
	case protocol.OffsetFetch:
		err = a.handleOffsetFetchRequest(req)
	case protocol.GroupCoordinator:
		err = a.handleGroupCoordinatorRequest(req)
	case protocol.JoinGroup:
		err = a.handleJoinGroupRequest(req)
	case protocol.Heartbeat:
		err = a.handleHeartbeatRequest(req)
	case protocol.LeaveGroup:
		err = a.handleLeaveGroupRequest(req)
	case protocol.SyncGroup:
		err = a.handleSyncGroupRequest(req)
	case protocol.DescribeGroups:
		err = a.handleDescribeGroupRequest(req)
	case protocol.ListGroups:
		err = a.handleListGroupsRequest(req)
	case protocol.SaslHandshake:
		err = a.handleSaslHandshakeRequest(req)
	case protocol.ApiVersions:
		err = a.handleApiVersionsRequest(req)
	case protocol.CreateTopics:
		err = a.handleCreateTopicsRequest(req)
	case protocol.DeleteTopics:
		err = a.handleDeleteTopicsRequest(req)
	case protocol.OffsetForLeaderEpoch: // a zkafka broker-to-broker extension (kafka_apis_leader_epoch.go)
		err = a.handleOffsetForLeaderEpochRequest(req)
	default:
		err = fmt.Errorf("%w: unknown api code %d", protocol.ErrUnknown, int16(req.Header.ApiKey))
	}
	if err != nil {
		a.handleError(req, err)
	}
}

// describe renders a request header for log lines lazily: the returned value formats itself only
// when a logger actually prints it, so disabled trace/debug lines cost nothing per request.
func describe(req *network.Request) requestDescription { return requestDescription{req} }

type requestDescription struct{ req *network.Request }

func (d requestDescription) String() string {
	h := d.req.Header
	cid := "null"
	if h.ClientID != nil {
		cid = *h.ClientID
	}
	return fmt.Sprintf("{api_key=%d,api_version=%d,correlation_id=%d,client_id=%s}", int16(h.ApiKey),
		h.ApiVersion, h.CorrelationID, cid)
}

// handleError sends getErrorResponse(err), or closes the connection when there is none
// (a produce with acks=0).
func (a *KafkaApis) handleError(req *network.Request, err error) {
	if protocol.CodeOf(err) == protocol.ErrUnknown.Code {
		a.logger.WithError(err).Errorf("Error when handling request %s", describe(req))
	} else {
		a.logger.Debugf("Answering request %s with error: %v", describe(req), err)
	}
	resp := GetErrorResponse(req.Body, err)
	if resp == nil {
		a.requestChannel.CloseConnection(req)
		return
	}
	a.sendResponse(req, resp)
}

// sendResponse queues msg (encoded at its version) as the answer to req. A response that cannot
// be encoded (a string over 32767 bytes, such as the member id made from a client id of that
// length) is replaced by the request's error response with UNKNOWN, as 0.10.2's SchemaException
// from the serialization ends in KafkaApis.handleError; without one the connection is closed.
func (a *KafkaApis) sendResponse(req *network.Request, msg protocol.Message) {
	send, err := network.EncodeResponseSend(req.Header.CorrelationID, msg)
	if err != nil {
		a.logger.WithError(err).Errorf("Error when handling request %s", describe(req))
		var errResp protocol.Message
		if errResp = GetErrorResponse(req.Body, fmt.Errorf("%w: %w", protocol.ErrUnknown, err)); errResp != nil {
			send, err = network.EncodeResponseSend(req.Header.CorrelationID, errResp)
		}
		if errResp == nil || err != nil {
			a.requestChannel.CloseConnection(req)
			return
		}
	}
	a.requestLogger.Debugf("Completed request:%s from connection %s", describe(req), req.ConnectionID)
	a.requestChannel.SendResponse(&network.Response{Request: req, Send: send, Action: network.SendAction})
}

func clientIDOf(req *network.Request) string {
	if req.Header.ClientID == nil {
		return ""
	}
	return *req.Header.ClientID
}

// authorize asks the authorizer, if any (KafkaApis.authorize: authorizer.forall).
func (a *KafkaApis) authorize(s network.Session, op auth.Operation, r auth.Resource) bool {
	return a.authorizer == nil || a.authorizer.Authorize(s, op, r)
}

func topicResource(topic string) auth.Resource {
	return auth.Resource{ResourceType: auth.Topic, Name: topic}
}

func groupResource(group string) auth.Resource {
	return auth.Resource{ResourceType: auth.Group, Name: group}
}

// authorizeClusterAction fails a request from a principal without ClusterAction on the cluster
// (KafkaApis.authorizeClusterAction): the error response carries CLUSTER_AUTHORIZATION_FAILED.
func (a *KafkaApis) authorizeClusterAction(req *network.Request) error {
	if !a.authorize(req.Session, auth.ClusterAction, auth.ClusterResource) {
		return protocol.Errorf(protocol.ErrClusterAuthorizationFailed, "Request %s is not authorized.", describe(req))
	}
	return nil
}
