package server

import (
	"fmt"
	"sort"
	"strings"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/security/auth"
)

// The admin requests clients send to the active controller: CreateTopics and DeleteTopics.
// No authorizer is configured, so the CLUSTER_AUTHORIZATION_FAILED and
// TOPIC_AUTHORIZATION_FAILED branches of 0.10.2 never apply.

// handleCreateTopicsRequest: a broker that is not the active controller answers NOT_CONTROLLER
// for every topic (clients then look the controller up in Metadata v1 and retry there); the
// controller answers INVALID_REQUEST for a topic listed twice and hands the others to the
// AdminManager.
//
// Kafka 0.10.2: KafkaApis.handleCreateTopicsRequest.
func (a *KafkaApis) handleCreateTopicsRequest(req *network.Request) error {
	cr, ok := req.Body.(*protocol.CreateTopicsRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	// The request's topics in order; a name listed more than once is refused as a whole.
	var order, duplicates []string
	seen := map[string]bool{}
	dup := map[string]bool{}
	for _, t := range cr.CreateTopicRequests {
		if seen[t.Topic] {
			if !dup[t.Topic] {
				duplicates = append(duplicates, t.Topic)
			}
			dup[t.Topic] = true
			continue
		}
		seen[t.Topic] = true
		order = append(order, t.Topic)
	}
	send := func(results map[string]error) {
		resp := &protocol.CreateTopicsResponse{Version: cr.Version, TopicErrors: make([]protocol.CreateTopicsResponseTopic, 0, len(order))}
		for _, t := range order {
			code, msg := topicErrorOf(results[t])
			resp.TopicErrors = append(resp.TopicErrors, protocol.CreateTopicsResponseTopic{Topic: t, ErrorCode: code, ErrorMessage: msg})
		}
		a.logger.Tracef("Sending create topics response %+v for correlation id %d to client %s.", resp, req.Header.CorrelationID, clientIDOf(req))
		a.sendResponse(req, resp)
	}
	if !a.isActiveController() {
		send(everyTopic(order, protocol.ErrNotController))
		return nil
	}
	if !a.authorize(req.Session, auth.Create, auth.ClusterResource) {
		send(everyTopic(order, protocol.ErrClusterAuthorizationFailed))
		return nil
	}
	var valid []CreateTopicRequest
	for _, t := range cr.CreateTopicRequests {
		if dup[t.Topic] {
			continue
		}
		d := TopicDetails{NumPartitions: t.NumPartitions, ReplicationFactor: t.ReplicationFactor, Configs: map[string]string{}}
		if len(t.ReplicaAssignment) > 0 {
			d.ReplicasAssignments = make(map[int32][]int32, len(t.ReplicaAssignment))
			for _, ra := range t.ReplicaAssignment {
				d.ReplicasAssignments[ra.PartitionID] = append([]int32{}, ra.Replicas...)
			}
		}
		for _, c := range t.Configs {
			d.Configs[c.ConfigKey] = c.ConfigValue
		}
		valid = append(valid, CreateTopicRequest{Topic: t.Topic, TopicDetails: d})
	}
	a.adminManager.CreateTopics(cr.Timeout, cr.ValidateOnly, valid, func(results map[string]error) {
		if len(duplicates) > 0 {
			sorted := append([]string{}, duplicates...)
			sort.Strings(sorted)
			msg := fmt.Sprintf("Create topics request from client `%s` contains multiple entries for the following topics: %s",
				clientIDOf(req), strings.Join(sorted, ","))
			// v1 carries the message to the client; v0 has only the code, so it goes to the log.
			if cr.Version == 0 {
				a.logger.Warn(msg)
			}
			for _, t := range duplicates {
				results[t] = &kafkaException{code: protocol.ErrInvalidRequest, msg: msg}
			}
		}
		send(results)
	})
	return nil
}

// handleDeleteTopicsRequest: topics this broker's MetadataCache does not know answer
// UNKNOWN_TOPIC_OR_PARTITION; a broker that is not the active controller answers
// NOT_CONTROLLER for every topic; the controller hands the known ones to the AdminManager.
//
// Kafka 0.10.2: KafkaApis.handleDeleteTopicsRequest.
func (a *KafkaApis) handleDeleteTopicsRequest(req *network.Request) error {
	dr, ok := req.Body.(*protocol.DeleteTopicsRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	// The request's topics are a set in 0.10.2: a name listed twice is answered once.
	var order, existing []string
	seen, deleteDenied := map[string]bool{}, map[string]bool{}
	for _, t := range dr.Topics {
		if seen[t] {
			continue
		}
		seen[t] = true
		order = append(order, t)
		switch a.topicDenied(req, t, auth.Delete) {
		case 0:
			existing = append(existing, t)
		case protocol.ErrTopicAuthorizationFailed.Code:
			deleteDenied[t] = true
		}
	}
	send := func(results map[string]error) {
		resp := &protocol.DeleteTopicsResponse{Version: dr.Version, TopicErrorCodes: make([]protocol.DeleteTopicsResponseTopic, 0, len(order))}
		for _, t := range order {
			err, ok := results[t]
			switch {
			case ok:
			case deleteDenied[t]:
				err = protocol.ErrTopicAuthorizationFailed
			default:
				err = protocol.ErrUnknownTopicOrPartition
			}
			code, _ := topicErrorOf(err)
			resp.TopicErrorCodes = append(resp.TopicErrorCodes, protocol.DeleteTopicsResponseTopic{Topic: t, ErrorCode: code})
		}
		a.logger.Tracef("Sending delete topics response %+v for correlation id %d to client %s.", resp, req.Header.CorrelationID, clientIDOf(req))
		a.sendResponse(req, resp)
	}
	if !a.isActiveController() {
		send(everyTopic(order, protocol.ErrNotController))
		return nil
	}
	if len(existing) == 0 {
		send(nil)
		return nil
	}
	a.adminManager.DeleteTopics(dr.Timeout, existing, send)
	return nil
}

// isActiveController: only the active controller, which has an AdminManager, creates and deletes
// topics.
func (a *KafkaApis) isActiveController() bool {
	return a.controller != nil && a.controller.IsActive() && a.adminManager != nil
}

// everyTopic answers err for each topic.
func everyTopic(topics []string, err error) map[string]error {
	results := make(map[string]error, len(topics))
	for _, t := range topics {
		results[t] = err
	}
	return results
}
