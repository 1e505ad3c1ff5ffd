package clients

import (
	"fmt"
	"strings"

	"github.com/zkafka/zkafka/clients/protocol"
)

// NodeApiVersions are the API versions a node said it supports (ApiVersions response).
//
// Kafka 0.10.2: org.apache.kafka.clients.NodeApiVersions.
type NodeApiVersions struct {
	versions map[protocol.ApiKeys][2]int16 // min, max
}

// NewNodeApiVersions indexes an ApiVersions response's list.
func NewNodeApiVersions(list []protocol.ApiVersionsResponseApiKey) *NodeApiVersions {
	v := &NodeApiVersions{versions: make(map[protocol.ApiKeys][2]int16, len(list))}
	for _, e := range list {
		v.versions[protocol.ApiKeys(e.ApiKey)] = [2]int16{e.MinVersion, e.MaxVersion}
	}
	return v
}

// UsableVersion is the highest version of key, at most desired, that both the node and this
// client (OldestVersion of the protocol table) support; an error wrapping
// protocol.ErrUnsupportedVersion when there is none.
//
// Kafka 0.10.2: NodeApiVersions.usableVersion.
func (v *NodeApiVersions) UsableVersion(key protocol.ApiKeys, desired int16) (int16, error) {
	r, ok := v.versions[key]
	if !ok {
		return 0, protocol.Errorf(protocol.ErrUnsupportedVersion, "The broker does not support %s", key)
	}
	use := min(desired, r[1])
	if use < r[0] || use < protocol.OldestVersion(key) {
		return 0, protocol.Errorf(protocol.ErrUnsupportedVersion, "The broker supports %s versions %d to %d; this client %d to %d",
			key, r[0], r[1], protocol.OldestVersion(key), desired)
	}
	return use, nil
}

func (v *NodeApiVersions) String() string {
	var parts []string
	for k := protocol.ApiKeys(0); k <= protocol.MaxApiKey; k++ {
		if r, ok := v.versions[k]; ok {
			parts = append(parts, fmt.Sprintf("%s(%d): %d to %d", k, int16(k), r[0], r[1]))
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
