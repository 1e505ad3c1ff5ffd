package protocol

// SupportedVersions is the version range of every API key a 0.10.2 broker advertises, in key
// order: exactly the api_versions array of its ApiVersions v0 response. It is derived from the
// schema table (first defined version .. last version) and checked against it by a test. It is
// never modified.
//
// Kafka 0.10.2: ApiVersionsResponse.API_VERSIONS_RESPONSE (built by createApiVersionsResponse
// from ProtoUtils.oldestVersion/latestVersion).
var SupportedVersions = [...]ApiVersionsResponseApiKey{
	{ApiKey: int16(Produce), MinVersion: 0, MaxVersion: 2},
	{ApiKey: int16(Fetch), MinVersion: 0, MaxVersion: 3},
	{ApiKey: int16(ListOffsets), MinVersion: 0, MaxVersion: 1},
	{ApiKey: int16(Metadata), MinVersion: 0, MaxVersion: 2},
	{ApiKey: int16(LeaderAndIsr), MinVersion: 0, MaxVersion: 0},
	{ApiKey: int16(StopReplica), MinVersion: 0, MaxVersion: 0},
	{ApiKey: int16(UpdateMetadata), MinVersion: 0, MaxVersion: 3},
	{ApiKey: int16(ControlledShutdown), MinVersion: 1, MaxVersion: 1},
	{ApiKey: int16(OffsetCommit), MinVersion: 0, MaxVersion: 2},
	{ApiKey: int16(OffsetFetch), MinVersion: 0, MaxVersion: 2},
	{ApiKey: int16(GroupCoordinator), MinVersion: 0, MaxVersion: 0},
	{ApiKey: int16(JoinGroup), MinVersion: 0, MaxVersion: 1},
	{ApiKey: int16(Heartbeat), MinVersion: 0, MaxVersion: 0},
	{ApiKey: int16(LeaveGroup), MinVersion: 0, MaxVersion: 0},
	{ApiKey: int16(SyncGroup), MinVersion: 0, MaxVersion: 0},
	{ApiKey: int16(DescribeGroups), MinVersion: 0, MaxVersion: 0},
	{ApiKey: int16(ListGroups), MinVersion: 0, MaxVersion: 0},
	{ApiKey: int16(SaslHandshake), MinVersion: 0, MaxVersion: 0},
	{ApiKey: int16(ApiVersions), MinVersion: 0, MaxVersion: 0},
	{ApiKey: int16(CreateTopics), MinVersion: 0, MaxVersion: 1},
	{ApiKey: int16(DeleteTopics), MinVersion: 0, MaxVersion: 0},
}

// OldestVersion is the lowest supported version of key (Kafka: ProtoUtils.oldestVersion), or -1.
func OldestVersion(key ApiKeys) int16 {
	if !key.IsValid() {
		return -1
	}
	return SupportedVersions[key].MinVersion
}

// LatestVersion is the highest supported version of key (Kafka: ProtoUtils.latestVersion), or -1.
func LatestVersion(key ApiKeys) int16 {
	if !key.IsValid() {
		return -1
	}
	return SupportedVersions[key].MaxVersion
}

// IsSupported tells whether the broker accepts key at version (Kafka:
// Protocol.apiVersionSupported). ControlledShutdown v0 is not supported here even though
// ParseRequest decodes it, exactly as 0.10.2 advertises.
func IsSupported(key ApiKeys, version int16) bool {
	return key.IsValid() && version >= SupportedVersions[key].MinVersion && version <= SupportedVersions[key].MaxVersion
}

// ApiVersionsResponseDefault returns a fresh copy of the broker's ApiVersions v0 response:
// error 0 and SupportedVersions.
//
// Kafka 0.10.2: ApiVersionsResponse.API_VERSIONS_RESPONSE.
func ApiVersionsResponseDefault() *ApiVersionsResponse {
	vs := make([]ApiVersionsResponseApiKey, len(SupportedVersions))
	copy(vs, SupportedVersions[:])
	return &ApiVersionsResponse{Version: 0, ApiVersions: vs}
}

// ApiVersionsResponseFor is what the broker answers to an ApiVersions request of version
// requestVersion (KafkaApis.handleApiVersionsRequest): the default response when the version
// is supported, otherwise error 35 (UNSUPPORTED_VERSION) with an empty list. Either way the body
// is in the v0 layout (Version 0), whatever version the client asked for, so a newer client can
// read the error and retry with v0. The unsupported answer's body is 00 23 00 00 00 00.
func ApiVersionsResponseFor(requestVersion int16) *ApiVersionsResponse {
	if IsSupported(ApiVersions, requestVersion) {
		return ApiVersionsResponseDefault()
	}
	return &ApiVersionsResponse{Version: 0, ErrorCode: ErrUnsupportedVersion.Code, ApiVersions: []ApiVersionsResponseApiKey{}}
}
