package common

import (
	"strconv"
	"strings"
)

// SecurityProtocol is the protocol a listener speaks: its wire id (UpdateMetadata's
// security_protocol_type) is the value, its name (listener.security.protocol.map, the broker
// znode's listener_security_protocol_map) is String.
//
// Kafka 0.10.2: org.apache.kafka.common.protocol.SecurityProtocol. It lives in clients/common
// rather than clients/protocol because zk/zkutils, below the protocol package, parses the
// broker znode's endpoints with it.
type SecurityProtocol int16

// The security protocols of 0.10.2, with their ids. TRACE is for testing only but is a valid
// name.
const (
	PLAINTEXT      SecurityProtocol = 0
	SSL            SecurityProtocol = 1
	SASL_PLAINTEXT SecurityProtocol = 2
	SASL_SSL       SecurityProtocol = 3
	TRACE          SecurityProtocol = 32767
)

var securityProtocolNames = map[SecurityProtocol]string{
	PLAINTEXT: "PLAINTEXT", SSL: "SSL", SASL_PLAINTEXT: "SASL_PLAINTEXT", SASL_SSL: "SASL_SSL", TRACE: "TRACE",
}

// SecurityProtocols lists every protocol in declaration order (SecurityProtocol.values).
var SecurityProtocols = []SecurityProtocol{PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL, TRACE}

// String is the protocol's name; an id 0.10.2 does not define prints as "SecurityProtocol(n)".
func (p SecurityProtocol) String() string {
	if n, ok := securityProtocolNames[p]; ok {
		return n
	}
	return "SecurityProtocol(" + strconv.Itoa(int(p)) + ")"
}

// ID is the wire id (SecurityProtocol.id).
func (p SecurityProtocol) ID() int16 { return int16(p) }

// SecurityProtocolForName is SecurityProtocol.forName: the name upper-cased, false when 0.10.2
// has no such protocol.
func SecurityProtocolForName(name string) (SecurityProtocol, bool) {
	up := strings.ToUpper(name)
	for p, n := range securityProtocolNames {
		if n == up {
			return p, true
		}
	}
	return 0, false
}

// SecurityProtocolForID is SecurityProtocol.forId; false for an unknown id.
func SecurityProtocolForID(id int16) (SecurityProtocol, bool) {
	p := SecurityProtocol(id)
	_, ok := securityProtocolNames[p]
	return p, ok
}
