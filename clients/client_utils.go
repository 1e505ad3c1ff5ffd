package clients

import (
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/clients/config"
)

// ParseAndValidateAddresses checks bootstrap.servers: every entry host:port (IPv6 in
// brackets), at least one resolvable. It returns the entries as host:port strings.
//
// Kafka 0.10.2: org.apache.kafka.clients.ClientUtils.parseAndValidateAddresses (messages verbatim).
func ParseAndValidateAddresses(urls []string) ([]string, error) {
	var out []string
	for _, u := range urls {
		u = strings.TrimSpace(u)
		if u == "" {
			continue
		}
		host, port, ok := hostPort(u)
		if !ok {
			return nil, &config.ConfigException{Msg: "Invalid url in bootstrap.servers: " + u}
		}
		if _, err := net.LookupHost(host); err != nil {
			continue // Kafka logs "Removing server ... as DNS resolution failed" and skips it
		}
		out = append(out, net.JoinHostPort(host, port))
	}
	if len(out) == 0 {
		return nil, &config.ConfigException{Msg: "No resolvable bootstrap urls given in bootstrap.servers"}
	}
	return out, nil
}

// hostPort is Utils.getHost/getPort: the part before the last ':' (brackets stripped) and the
// digits after it.
func hostPort(s string) (host, port string, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 || i == len(s)-1 {
		return "", "", false
	}
	host, port = s[:i], s[i+1:]
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", "", false
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" {
		return "", "", false
	}
	return host, port, true
}

func sortedTopics(m map[string]error) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
