package coordinator

import "bytes"

// Protocol is one (name, metadata) pair of a JoinGroup's group_protocols, in preference order.
type Protocol struct {
	Name     string
	Metadata []byte
}

// MemberMetadata is one member of a group. Guarded by its group's mu.
//
// Kafka 0.10.2: kafka.coordinator.MemberMetadata.
type MemberMetadata struct {
	MemberID           string
	GroupID            string
	ClientID           string
	ClientHost         string
	RebalanceTimeoutMs int32
	SessionTimeoutMs   int32
	ProtocolType       string
	SupportedProtocols []Protocol

	Assignment           []byte
	awaitingJoinCallback JoinCallback
	awaitingSyncCallback SyncCallback
	latestHeartbeat      int64
	isLeaving            bool
}

// NewMemberMetadata returns a member with an empty assignment and no heartbeat yet.
func NewMemberMetadata(memberID, groupID, clientID, clientHost string, rebalanceTimeoutMs, sessionTimeoutMs int32,
	protocolType string, protocols []Protocol) *MemberMetadata {
	return &MemberMetadata{MemberID: memberID, GroupID: groupID, ClientID: clientID, ClientHost: clientHost,
		RebalanceTimeoutMs: rebalanceTimeoutMs, SessionTimeoutMs: sessionTimeoutMs, ProtocolType: protocolType,
		SupportedProtocols: protocols, Assignment: []byte{}, latestHeartbeat: -1}
}

func (m *MemberMetadata) protocols() map[string]bool {
	out := make(map[string]bool, len(m.SupportedProtocols))
	for _, p := range m.SupportedProtocols {
		out[p.Name] = true
	}
	return out
}

// Metadata is the member's metadata for protocol (nil if it does not support it).
func (m *MemberMetadata) Metadata(protocol string) []byte {
	for _, p := range m.SupportedProtocols {
		if p.Name == protocol {
			return p.Metadata
		}
	}
	return nil
}

// Matches reports whether protocols equals the member's: same names in the same order with
// byte-equal metadata.
func (m *MemberMetadata) Matches(protocols []Protocol) bool {
	if len(protocols) != len(m.SupportedProtocols) {
		return false
	}
	for i, p := range protocols {
		q := m.SupportedProtocols[i]
		if p.Name != q.Name || !bytes.Equal(p.Metadata, q.Metadata) {
			return false
		}
	}
	return true
}

// vote is the member's most preferred protocol among candidates.
func (m *MemberMetadata) vote(candidates map[string]bool) (string, bool) {
	for _, p := range m.SupportedProtocols {
		if candidates[p.Name] {
			return p.Name, true
		}
	}
	return "", false
}
