package auth

import (
	"fmt"
	"strings"
)

// ResourceType is what an ACL protects: Cluster, Topic or Group.
//
// Kafka 0.10.2: kafka.security.auth.ResourceType.
type ResourceType string

// The resource types of 0.10.2.
const (
	Cluster ResourceType = "Cluster"
	Topic   ResourceType = "Topic"
	Group   ResourceType = "Group"
)

// ResourceTypes lists every resource type (ResourceType.values).
var ResourceTypes = []ResourceType{Cluster, Topic, Group}

// ResourceTypeFromString matches a name case-insensitively (ResourceType.fromString).
func ResourceTypeFromString(s string) (ResourceType, error) {
	for _, t := range ResourceTypes {
		if strings.EqualFold(string(t), s) {
			return t, nil
		}
	}
	names := make([]string, len(ResourceTypes))
	for i, t := range ResourceTypes {
		names[i] = string(t)
	}
	return "", fmt.Errorf("%s not a valid resourceType name. The valid names are %s", s, strings.Join(names, ","))
}

// Resource is a resource type and a name.
//
// Kafka 0.10.2: kafka.security.auth.Resource.
type Resource struct {
	ResourceType ResourceType
	Name         string
}

// ClusterResourceName is the name of the one Cluster resource.
const ClusterResourceName = "kafka-cluster"

// WildCardResource is the resource name matching every resource of a type.
const WildCardResource = "*"

// ClusterResource is Resource.ClusterResource.
var ClusterResource = Resource{ResourceType: Cluster, Name: ClusterResourceName}

// String is Kafka's "<ResourceType>:<name>".
func (r Resource) String() string { return string(r.ResourceType) + ":" + r.Name }

// ResourceFromString parses "<ResourceType>:<name>" (Resource.fromString).
func ResourceFromString(s string) (Resource, error) {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return Resource{}, fmt.Errorf("expected a string in format ResourceType:ResourceName but got %s", s)
	}
	t, err := ResourceTypeFromString(s[:i])
	if err != nil {
		return Resource{}, err
	}
	return Resource{ResourceType: t, Name: s[i+1:]}, nil
}
