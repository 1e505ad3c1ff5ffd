package config

import (
	"strings"
)

// ApiVersion is an inter-broker protocol / message format version such as 0.10.2-IV0.
//
// Kafka 0.10.2: kafka.api.ApiVersion.
type ApiVersion struct {
	Version    string // e.g. "0.10.2-IV0"
	ID         int    // position in the ordered list; later versions compare greater
	MessageFmt int8   // the message format (magic) this version writes
}

// apiVersions is 0.10.2's ordered list; the short names (0.10.2) alias their latest IV.
var apiVersions = []ApiVersion{
	{"0.8.0", 0, 0}, {"0.8.1", 1, 0}, {"0.8.2", 2, 0}, {"0.9.0", 3, 0},
	{"0.10.0-IV0", 4, 1}, {"0.10.0-IV1", 5, 1}, {"0.10.1-IV0", 6, 1}, {"0.10.1-IV1", 7, 1},
	{"0.10.1-IV2", 8, 1}, {"0.10.2-IV0", 9, 1},
}

var apiVersionAliases = map[string]string{"0.10.0": "0.10.0-IV1", "0.10.1": "0.10.1-IV2", "0.10.2": "0.10.2-IV0"}

// ParseApiVersion looks up a version string; only the first three dot components count
// (0.10.2.1 is 0.10.2), as ApiVersion.apply does.
func ParseApiVersion(s string) (ApiVersion, error) {
	key := s
	parts := strings.Split(s, ".")
	if len(parts) > 3 {
		key = strings.Join(parts[:3], ".")
	}
	if a, ok := apiVersionAliases[key]; ok {
		key = a
	}
	for _, v := range apiVersions {
		if v.Version == key {
			return v, nil
		}
	}
	return ApiVersion{}, illegalArgument("Version `%s` is not a valid version", s)
}

// AtLeast reports whether v is o or newer.
func (v ApiVersion) AtLeast(o ApiVersion) bool { return v.ID >= o.ID }

// String is the version's name.
func (v ApiVersion) String() string { return v.Version }

// KAFKA_0_10_0_IV1 is the first version whose broker registration is JSON version 3+ and
// whose UpdateMetadata carries racks (used to choose the /brokers/ids JSON version).
var KAFKA_0_10_0_IV1 = apiVersions[5]
