package server

import (
	"fmt"
	"sort"
	"sync"

	"github.com/zkafka/zkafka/clients/protocol"
)

// CreateTopicPolicy vets each topic of a CreateTopics request before it is created: Validate
// returns a PolicyViolationException (NewPolicyViolationException) to refuse the topic with
// POLICY_VIOLATION and the error's text as the response's error_message. Other topics of the
// same request are not affected.
//
// Kafka 0.10.2: org.apache.kafka.server.policy.CreateTopicPolicy (Configurable, AutoCloseable).
// The broker config create.topic.policy.class.name names a policy registered with
// RegisterCreateTopicPolicy instead of a JVM class; Configure receives the broker's original
// properties, as Kafka's getConfiguredInstance passes config.originals().
type CreateTopicPolicy interface {
	Configure(brokerConfigs map[string]string) error
	Validate(RequestMetadata) error
	Close() error
}

// RequestMetadata is one topic of a CreateTopics request as a policy sees it. NumPartitions and
// ReplicationFactor are nil when the request gave a replica assignment instead;
// ReplicasAssignments is nil when it gave counts. Configs are the request's topic configs only
// (broker defaults reach the policy through Configure).
//
// Kafka 0.10.2: CreateTopicPolicy.RequestMetadata.
type RequestMetadata struct {
	Topic               string
	NumPartitions       *int32
	ReplicationFactor   *int16
	ReplicasAssignments map[int32][]int32
	Configs             map[string]string
}

// String is Kafka's RequestMetadata.toString.
func (m RequestMetadata) String() string {
	opt := func(p any) string {
		switch v := p.(type) {
		case *int32:
			if v != nil {
				return fmt.Sprint(*v)
			}
		case *int16:
			if v != nil {
				return fmt.Sprint(*v)
			}
		}
		return "null"
	}
	assignment := "null"
	if m.ReplicasAssignments != nil {
		assignment = fmt.Sprint(m.ReplicasAssignments)
	}
	return fmt.Sprintf("RequestMetadata(topic=%s, numPartitions=%s, replicationFactor=%s, replicasAssignments=%s, configs=%v)",
		m.Topic, opt(m.NumPartitions), opt(m.ReplicationFactor), assignment, m.Configs)
}

// kafkaException is an error whose text is exactly a Kafka exception's message (what a v1
// CreateTopics response carries as error_message) and which unwraps to the protocol error its
// exception class maps to.
type kafkaException struct {
	code *protocol.Error
	msg  string
}

func (e *kafkaException) Error() string { return e.msg }
func (e *kafkaException) Unwrap() error { return e.code }

// NewPolicyViolationException is what a CreateTopicPolicy returns to refuse a topic.
//
// Kafka 0.10.2: org.apache.kafka.common.errors.PolicyViolationException.
func NewPolicyViolationException(msg string) error {
	return &kafkaException{code: protocol.ErrPolicyViolation, msg: msg}
}

var createTopicPolicies struct {
	mu        sync.Mutex
	factories map[string]func() CreateTopicPolicy
}

// RegisterCreateTopicPolicy makes a policy available under name, the value
// create.topic.policy.class.name takes to select it (conventionally a Java-style class name). A
// second registration under the same name replaces the first.
func RegisterCreateTopicPolicy(name string, factory func() CreateTopicPolicy) {
	createTopicPolicies.mu.Lock()
	defer createTopicPolicies.mu.Unlock()
	if createTopicPolicies.factories == nil {
		createTopicPolicies.factories = map[string]func() CreateTopicPolicy{}
	}
	createTopicPolicies.factories[name] = factory
}

// RegisteredCreateTopicPolicies lists the names RegisterCreateTopicPolicy has seen.
func RegisteredCreateTopicPolicies() []string {
	createTopicPolicies.mu.Lock()
	defer createTopicPolicies.mu.Unlock()
	names := make([]string, 0, len(createTopicPolicies.factories))
	for n := range createTopicPolicies.factories {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// newCreateTopicPolicy builds and configures the policy create.topic.policy.class.name names;
// an empty name is no policy. An unknown name fails as Kafka's class lookup does, at startup.
func newCreateTopicPolicy(name string, brokerConfigs map[string]string) (CreateTopicPolicy, error) {
	if name == "" {
		return nil, nil
	}
	createTopicPolicies.mu.Lock()
	factory := createTopicPolicies.factories[name]
	createTopicPolicies.mu.Unlock()
	if factory == nil {
		return nil, fmt.Errorf("Invalid value %s for configuration %s: Class %s could not be found.",
			name, createTopicPolicyClassNameProp, name)
	}
	p := factory()
	if err := p.Configure(brokerConfigs); err != nil {
		return nil, fmt.Errorf("configuring %s %s: %w", createTopicPolicyClassNameProp, name, err)
	}
	return p, nil
}

const createTopicPolicyClassNameProp = "create.topic.policy.class.name"
