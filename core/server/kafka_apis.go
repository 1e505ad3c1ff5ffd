package server

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// Controller is what KafkaApis needs from the controller (issue 6). A nil Controller is a broker
// that is never the controller: CreateTopics and DeleteTopics answer NOT_CONTROLLER and
// ControlledShutdown fails with NOT_CONTROLLER, as a 0.10.2 broker that is not the active
// controller answers.
type Controller interface {
	IsActive() bool
}

// GroupCoordinator is what KafkaApis needs from the group coordinator (issue 7). A nil one
// answers every group API with GROUP_COORDINATOR_NOT_AVAILABLE, as 0.10.2's coordinator does
// before it is active.
type GroupCoordinator interface {
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
// Kafka 0.10.2: kafka.server.KafkaApis. No authorizer is configured yet, so every request is
// authorized (as with authorizer.class.name empty).
type KafkaApis struct {
	requestChannel ResponseChannel
	replicaManager *ReplicaManager
	zkUtils        *zkutils.ZkUtils
	brokerID       int32
	config         *config.KafkaConfig
	metadataCache  *MetadataCache
	controller     Controller
	coordinator    GroupCoordinator
	clusterID      string
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
	Controller     Controller       // nil until the controller issue
	Coordinator    GroupCoordinator // nil until the coordinator issue
	ClusterID      string
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
		coordinator: c.Coordinator, clusterID: c.ClusterID,
		logger:        c.Logger.WithField("logger", "kafka.server.KafkaApis").WithField("ident", fmt.Sprintf("[KafkaApi-%d] ", c.BrokerID)),
		requestLogger: c.RequestLogger}
}

// Handle dispatches one request. A handler error (or panic) becomes the request's error response.
func (a *KafkaApis) Handle(req *network.Request) {
	defer func() {
		if r := recover(); r != nil {
			err := fmt.Errorf("%w: panic: %v", protocol.ErrUnknown, r)
			a.logger.Errorf("Error when handling request %s: %v\n%s", describe(req), r, debug.Stack())
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
	case protocol.JoinGroup, protocol.Heartbeat, protocol.LeaveGroup, protocol.SyncGroup,
		protocol.DescribeGroups, protocol.ListGroups:
		err = a.handleGroupRequest(req)
	case protocol.SaslHandshake:
		err = a.handleSaslHandshakeRequest(req)
	case protocol.ApiVersions:
		err = a.handleApiVersionsRequest(req)
	case protocol.CreateTopics:
		err = a.handleCreateTopicsRequest(req)
	case protocol.DeleteTopics:
		err = a.handleDeleteTopicsRequest(req)
	default:
		err = fmt.Errorf("%w: unknown api code %d", protocol.ErrUnknown, int16(req.Header.ApiKey))
	}
	if err != nil {
		a.handleError(req, err)
	}
}

func describe(req *network.Request) string {
	cid := "null"
	if req.Header.ClientID != nil {
		cid = *req.Header.ClientID
	}
	return fmt.Sprintf("{api_key=%d,api_version=%d,correlation_id=%d,client_id=%s}", int16(req.Header.ApiKey),
		req.Header.ApiVersion, req.Header.CorrelationID, cid)
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

// sendResponse queues msg (encoded at its version) as the answer to req.
func (a *KafkaApis) sendResponse(req *network.Request, msg protocol.Message) {
	a.requestLogger.Debugf("Completed request:%s from connection %s", describe(req), req.ConnectionID)
	a.requestChannel.SendResponse(&network.Response{Request: req,
		Send: network.NewResponseSend(req.Header.CorrelationID, msg), Action: network.SendAction})
}

// fetchResponseSend writes a FetchResponse frame at write time, streaming each FileRecords
// slice from its segment file with sendfile (protocol.WriteResponse leaves them out of the
// encoded buffer).
//
// Kafka 0.10.2: kafka.api.FetchResponseSend / FetchResponse.toSend.
type fetchResponseSend struct {
	header protocol.ResponseHeader
	body   *protocol.FetchResponse
}

// WriteTo implements network.Send.
func (s fetchResponseSend) WriteTo(w io.Writer) (int64, error) {
	return protocol.WriteResponse(w, s.header, s.body)
}

func clientIDOf(req *network.Request) string {
	if req.Header.ClientID == nil {
		return ""
	}
	return *req.Header.ClientID
}

// --- Produce ---

func (a *KafkaApis) handleProducerRequest(req *network.Request) error {
	pr, ok := req.Body.(*protocol.ProduceRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	var entries []ProduceEntry
	unknown := map[common.TopicPartition]PartitionResponse{}
	for _, td := range pr.TopicData {
		exists := a.metadataCache.Contains(td.Topic)
		for _, d := range td.Data {
			tp := common.TopicPartition{Topic: td.Topic, Partition: d.Partition}
			if !exists {
				unknown[tp] = PartitionResponse{Err: protocol.ErrUnknownTopicOrPartition, BaseOffset: -1, LogAppendTime: record.NoTimestamp}
				continue
			}
			mr, ok := d.RecordSet.(*record.MemoryRecords)
			if !ok {
				mr = record.NewMemoryRecords(nil)
			}
			entries = append(entries, ProduceEntry{TopicPartition: tp, Records: mr})
		}
	}
	cb := func(status map[common.TopicPartition]PartitionResponse) {
		for tp, s := range unknown {
			status[tp] = s
		}
		if pr.Acks == 0 {
			var failed []string
			for tp, s := range status {
				if s.Err != nil {
					failed = append(failed, fmt.Sprintf("%s -> %s", tp, protocol.ErrorForCode(protocol.CodeOf(s.Err)).(*protocol.Error).Name))
				}
			}
			if len(failed) > 0 {
				a.logger.Infof("Closing connection due to error during produce request with correlation id %d from client id %s with ack=0\nTopic and partition to exceptions: %s",
					req.Header.CorrelationID, clientIDOf(req), strings.Join(failed, ","))
				a.requestChannel.CloseConnection(req)
			} else {
				a.requestChannel.NoOperation(req)
			}
			return
		}
		resp := &protocol.ProduceResponse{Version: pr.Version}
		for _, td := range pr.TopicData {
			t := protocol.ProduceResponseResponses{Topic: td.Topic}
			for _, d := range td.Data {
				s := status[common.TopicPartition{Topic: td.Topic, Partition: d.Partition}]
				t.PartitionResponses = append(t.PartitionResponses, protocol.ProduceResponsePartitionResponses{
					Partition: d.Partition, ErrorCode: protocol.CodeOf(s.Err), BaseOffset: s.BaseOffset, LogAppendTime: s.LogAppendTime})
			}
			resp.Responses = append(resp.Responses, t)
		}
		a.sendResponse(req, resp)
	}
	internalTopicsAllowed := clientIDOf(req) == AdminClientID
	a.replicaManager.AppendRecords(int64(pr.Timeout), pr.Acks, internalTopicsAllowed, entries, cb)
	return nil
}

// --- Fetch ---

func (a *KafkaApis) handleFetchRequest(req *network.Request) error {
	fr, ok := req.Body.(*protocol.FetchRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	version := fr.Version
	var authorized []PartitionFetchInfo
	var unknown []FetchPartitionData
	for _, t := range fr.Topics {
		exists := a.metadataCache.Contains(t.Topic)
		for _, p := range t.Partitions {
			tp := common.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			if !exists {
				unknown = append(unknown, FetchPartitionData{TopicPartition: tp, Err: protocol.ErrUnknownTopicOrPartition, HW: -1,
					Records: record.NewMemoryRecords(nil)})
				continue
			}
			authorized = append(authorized, PartitionFetchInfo{TopicPartition: tp, Offset: p.FetchOffset, MaxBytes: p.MaxBytes})
		}
	}
	cb := func(data []FetchPartitionData) {
		merged := make([]FetchPartitionData, 0, len(data)+len(unknown))
		for _, d := range data {
			if version <= 1 && d.Records != nil {
				if magic, ok := a.replicaManager.GetMagic(d.TopicPartition); ok && magic > record.MagicValueV0 {
					d.Records = a.downConvert(d)
				}
			}
			merged = append(merged, d)
		}
		merged = append(merged, unknown...)
		resp := &protocol.FetchResponse{Version: version}
		for _, d := range merged {
			ph := protocol.FetchResponsePartitionHeader{Partition: d.TopicPartition.Partition, ErrorCode: protocol.CodeOf(d.Err), HighWatermark: d.HW}
			entry := protocol.FetchResponsePartitionResponses{PartitionHeader: ph, RecordSet: d.Records}
			if entry.RecordSet == nil {
				entry.RecordSet = record.NewMemoryRecords(nil)
			}
			n := len(resp.Responses)
			if n > 0 && resp.Responses[n-1].Topic == d.TopicPartition.Topic {
				resp.Responses[n-1].PartitionResponses = append(resp.Responses[n-1].PartitionResponses, entry)
			} else {
				resp.Responses = append(resp.Responses, protocol.FetchResponseResponses{Topic: d.TopicPartition.Topic,
					PartitionResponses: []protocol.FetchResponsePartitionResponses{entry}})
			}
		}
		a.requestLogger.Debugf("Completed request:%s from connection %s", describe(req), req.ConnectionID)
		a.requestChannel.SendResponse(&network.Response{Request: req,
			Send: fetchResponseSend{header: protocol.ResponseHeader{CorrelationID: req.Header.CorrelationID}, body: resp}})
	}
	if len(authorized) == 0 {
		cb(nil)
		return nil
	}
	maxBytes := fr.MaxBytes
	if version <= 2 {
		maxBytes = 1<<31 - 1 // FetchRequest.DEFAULT_RESPONSE_MAX_BYTES
	}
	a.replicaManager.FetchMessages(int64(fr.MaxWaitTime), fr.ReplicaID, fr.MinBytes, maxBytes, version <= 2, authorized, cb)
	return nil
}

// downConvert gives a v0/v1 fetcher magic-0 messages when the chunk holds newer ones.
func (a *KafkaApis) downConvert(d FetchPartitionData) record.Records {
	type converter interface {
		HasMatchingShallowMagic(int8) (bool, error)
		ToMessageFormat(int8) (record.Records, error)
	}
	c, ok := d.Records.(converter)
	if !ok {
		return d.Records
	}
	if match, err := c.HasMatchingShallowMagic(record.MagicValueV0); err != nil || match {
		return d.Records
	}
	a.logger.Tracef("Down converting message to V0 for fetch request from partition %s", d.TopicPartition)
	conv, err := c.ToMessageFormat(record.MagicValueV0)
	if err != nil {
		a.logger.WithError(err).Warnf("Down conversion failed for %s", d.TopicPartition)
		return d.Records
	}
	return conv
}
