package config

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
)

// EndPoint is one listener: a name, host and port, and the security protocol the name maps to.
// Host "" means the default interface.
//
// Kafka 0.10.2: kafka.cluster.EndPoint. It lives here rather than in core/cluster because
// KafkaConfig parses listeners and core/cluster ranks above this leaf (layout.md B.4); core/cluster
// refers to this type.
type EndPoint struct {
	Host             string
	Port             int32
	ListenerName     string
	SecurityProtocol string
}

// ConnectionString renders NAME://host:port (":port" for the default interface, [v6]:port for IPv6).
func (e EndPoint) ConnectionString() string {
	if e.Host == "" {
		return e.ListenerName + "://:" + strconv.Itoa(int(e.Port))
	}
	return e.ListenerName + "://" + net.JoinHostPort(e.Host, strconv.Itoa(int(e.Port)))
}

var uriParseExp = regexp.MustCompile(`^(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)`)

// securityProtocols are SecurityProtocol.values of 0.10.2.
var securityProtocols = []string{"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL", "TRACE"}

// CreateEndPoint parses NAME://host:port with EndPoint.createEndPoint's rules.
func CreateEndPoint(s string, protocolMap map[string]string) (EndPoint, error) {
	m := uriParseExp.FindStringSubmatch(s)
	if m == nil {
		return EndPoint{}, fmt.Errorf("Unable to parse %s to a broker endpoint", s)
	}
	name := strings.ToUpper(m[1])
	proto, ok := protocolMap[name]
	if !ok {
		return EndPoint{}, fmt.Errorf("No security protocol defined for listener %s", name)
	}
	port, err := strconv.ParseInt(m[3], 10, 32)
	if err != nil {
		return EndPoint{}, fmt.Errorf("Unable to parse %s to a broker endpoint", s)
	}
	return EndPoint{Host: m[2], Port: int32(port), ListenerName: name, SecurityProtocol: proto}, nil
}

// ListenerListToEndPoints is CoreUtils.listenerListToEndPoints.
func ListenerListToEndPoints(listeners string, protocolMap map[string]string) ([]EndPoint, error) {
	var eps []EndPoint
	for _, l := range splitCsv(listeners) {
		ep, err := CreateEndPoint(l, protocolMap)
		if err != nil {
			return nil, fmt.Errorf("Error creating broker listeners from '%s': %v", listeners, err)
		}
		eps = append(eps, ep)
	}
	ports := map[int32]bool{}
	nameSet := map[string]bool{}
	for _, e := range eps {
		if e.Port != 0 {
			if ports[e.Port] {
				return nil, fmt.Errorf("requirement failed: Each listener must have a different port, listeners: %s", listeners)
			}
			ports[e.Port] = true
		}
		nameSet[e.ListenerName] = true
	}
	if len(nameSet) != len(eps) {
		return nil, fmt.Errorf("requirement failed: Each listener must have a different name, listeners: %s", listeners)
	}
	return eps, nil
}

func splitCsv(s string) []string {
	var out []string
	for _, p := range regexp.MustCompile(`\s*,\s*`).Split(strings.TrimSpace(s), -1) {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseCsvMap is CoreUtils.parseCsvMap: "k:v,k:v", split at the last ':' of each entry.
func parseCsvMap(prop, s string) (map[string]string, error) {
	out := map[string]string{}
	if s == "" {
		return out, nil
	}
	for _, kv := range regexp.MustCompile(`\s*,\s*`).Split(s, -1) {
		i := strings.LastIndex(kv, ":")
		if i < 0 {
			return nil, fmt.Errorf("Error parsing configuration property '%s': String index out of range: -1", prop)
		}
		out[strings.TrimSpace(kv[:i])] = strings.TrimSpace(kv[i+1:])
	}
	return out, nil
}

// deriveListeners computes listeners, advertised listeners and the inter-broker listener
// (KafkaConfig.getListeners, getAdvertisedListeners, getInterBrokerListenerNameAndSecurityProtocol).
func (c *KafkaConfig) deriveListeners() error {
	raw, err := parseCsvMap("listener.security.protocol.map", c.GetString("listener.security.protocol.map"))
	if err != nil {
		return err
	}
	c.ListenerSecurityProtocolMap = map[string]string{}
	for name, proto := range raw {
		if !contains(securityProtocols, strings.ToUpper(proto)) {
			return fmt.Errorf("Invalid security protocol `%s` defined in listener.security.protocol.map", proto)
		}
		c.ListenerSecurityProtocolMap[strings.ToUpper(name)] = strings.ToUpper(proto)
	}
	hostPort := func(host string, port int32) string { return "PLAINTEXT://" + host + ":" + strconv.Itoa(int(port)) }
	port := c.GetInt("port")
	host := c.GetString("host.name")
	listeners := hostPort(host, port)
	if s, ok := c.values["listeners"].(string); ok {
		listeners = s
	}
	if c.Listeners, err = ListenerListToEndPoints(listeners, c.ListenerSecurityProtocolMap); err != nil {
		return err
	}
	advHost, hasAdvHost := c.values["advertised.host.name"].(string)
	advPort, hasAdvPort := c.values["advertised.port"].(int32)
	switch s, ok := c.values["advertised.listeners"].(string); {
	case ok:
		c.AdvertisedListeners, err = ListenerListToEndPoints(s, c.ListenerSecurityProtocolMap)
	case hasAdvHost || hasAdvPort:
		if !hasAdvHost {
			advHost = host
		}
		if !hasAdvPort {
			advPort = port
		}
		c.AdvertisedListeners, err = ListenerListToEndPoints(hostPort(advHost, advPort), c.ListenerSecurityProtocolMap)
	default:
		c.AdvertisedListeners = c.Listeners
	}
	if err != nil {
		return err
	}
	name, hasName := c.values["inter.broker.listener.name"].(string)
	_, hasProto := c.originals["security.inter.broker.protocol"]
	switch {
	case hasName && hasProto:
		return fmt.Errorf("Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.")
	case hasName:
		name = strings.ToUpper(name)
		proto, ok := c.ListenerSecurityProtocolMap[name]
		if !ok {
			return fmt.Errorf("Listener with name %s defined in inter.broker.listener.name not found in listener.security.protocol.map.", name)
		}
		c.InterBrokerListenerName, c.InterBrokerSecurityProtocol = name, proto
	default:
		proto := strings.ToUpper(c.GetString("security.inter.broker.protocol"))
		if !contains(securityProtocols, proto) {
			return fmt.Errorf("Invalid security protocol `%s` defined in security.inter.broker.protocol", c.GetString("security.inter.broker.protocol"))
		}
		c.InterBrokerListenerName, c.InterBrokerSecurityProtocol = proto, proto
	}
	return nil
}
