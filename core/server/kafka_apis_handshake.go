package server

import (
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/network"
)

// The two requests a client may send before any other: SaslHandshake (Kafka 0.10.2:
// KafkaApis.handleSaslHandshakeRequest) and ApiVersions (KafkaApis.handleApiVersionsRequest).

// handleSaslHandshakeRequest: reaching KafkaApis means the listener is not in SASL
// authentication (PLAINTEXT, or already authenticated), so the handshake is out of place:
// ILLEGAL_SASL_STATE with the enabled mechanisms.
func (a *KafkaApis) handleSaslHandshakeRequest(req *network.Request) error {
	mechs := a.config.SaslEnabledMechanisms
	if mechs == nil {
		mechs = []string{}
	}
	a.sendResponse(req, &protocol.SaslHandshakeResponse{Version: 0, ErrorCode: protocol.ErrIllegalSaslState.Code, EnabledMechanisms: mechs})
	return nil
}

// handleApiVersionsRequest: the supported table, or UNSUPPORTED_VERSION with an empty list in the
// v0 layout for a version this broker does not know.
func (a *KafkaApis) handleApiVersionsRequest(req *network.Request) error {
	a.sendResponse(req, protocol.ApiVersionsResponseFor(req.Header.ApiVersion))
	return nil
}
