package config

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/clients/common"
)

// EndPoint is one listener: a name, host and port, and the security protocol the name maps to.
// Host "" means the default interface.
//
// Kafka 0.10.2: kafka.cluster.EndPoint. It lives here rather than in core/cluster because
// KafkaConfig parses listeners and core/cluster ranks above this leaf (docs/design.md, package
// map); core/cluster refers to this type.
type EndPoint struct {
	Host             string
	Port             int32
	ListenerName     string
	SecurityProtocol common.SecurityProtocol
}

// ConnectionString renders NAME://host:port (":port" for the default interface, [v6]:port for IPv6).
func (e EndPoint) ConnectionString() string {
	if e.Host == "" {
		return e.ListenerName + "://:" + strconv.Itoa(int(e.Port))
	}
	return e.ListenerName + "://" + net.JoinHostPort(e.Host, strconv.Itoa(int(e.Port)))
}

var uriParseExp = regexp.MustCompile(`^(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)`)

// CreateEndPoint parses NAME://host:port with EndPoint.createEndPoint's rules.
func CreateEndPoint(s string, protocolMap map[string]common.SecurityProtocol) (EndPoint, error) {
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
func ListenerListToEndPoints(listeners string, protocolMap map[string]common.SecurityProtocol) ([]EndPoint, error) {
	var eps []EndPoint
	for _, l := range splitCsv(listeners) {
		ep, err := CreateEndPoint(l, protocolMap)
		if err != nil {
			return nil, illegalArgument("Error creating broker listeners from '%s': %v", listeners, err)
		}
		eps = append(eps, ep)
	}
	ports := map[int32]bool{}
	nameSet := map[string]bool{}
	for _, e := range eps {
		if e.Port != 0 {
			if ports[e.Port] {
				return nil, illegalArgument("requirement failed: Each listener must have a different port, listeners: %s", listeners)
			}
			ports[e.Port] = true
		}
		nameSet[e.ListenerName] = true
	}
	if len(nameSet) != len(eps) {
		return nil, illegalArgument("requirement failed: Each listener must have a different name, listeners: %s", listeners)
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
			return nil, illegalArgument("Error parsing configuration property '%s': String index out of range: -1", prop)
		}
		out[strings.TrimSpace(kv[:i])] = strings.TrimSpace(kv[i+1:])
	}
	return out, nil
}

// deriveListeners computes listeners, advertised listeners and the inter-broker listener
// (KafkaConfig.getListeners, getAdvertisedListeners, getInterBrokerListenerNameAndSecurityProtocol).
func (c *KafkaConfig) deriveListeners() error {
	p := &c.Props
	raw, err := parseCsvMap("listener.security.protocol.map", p.ListenerSecurityProtocolMap)
	if err != nil {
		return err
	}
	c.ListenerSecurityProtocolMap = map[string]common.SecurityProtocol{}
	for name, proto := range raw {
		sp, ok := common.SecurityProtocolForName(proto)
		if !ok {
			return configException("Invalid security protocol `%s` defined in listener.security.protocol.map", proto)
		}
		c.ListenerSecurityProtocolMap[strings.ToUpper(name)] = sp
	}
	hostPort := func(host string, port int32) string { return "PLAINTEXT://" + host + ":" + strconv.Itoa(int(port)) }
	listeners := hostPort(p.HostName, p.Port)
	if p.Listeners != nil {
		listeners = *p.Listeners
	}
	if c.Listeners, err = ListenerListToEndPoints(listeners, c.ListenerSecurityProtocolMap); err != nil {
		return err
	}
	switch {
	case p.AdvertisedListeners != nil:
		c.AdvertisedListeners, err = ListenerListToEndPoints(*p.AdvertisedListeners, c.ListenerSecurityProtocolMap)
	case p.AdvertisedHostName != nil || p.AdvertisedPort != nil:
		advHost, advPort := p.HostName, p.Port
		if p.AdvertisedHostName != nil {
			advHost = *p.AdvertisedHostName
		}
		if p.AdvertisedPort != nil {
			advPort = *p.AdvertisedPort
		}
		c.AdvertisedListeners, err = ListenerListToEndPoints(hostPort(advHost, advPort), c.ListenerSecurityProtocolMap)
	default:
		c.AdvertisedListeners = c.Listeners
	}
	if err != nil {
		return err
	}
	_, hasProto := c.Originals()["security.inter.broker.protocol"]
	switch {
	case p.InterBrokerListenerName != nil && hasProto:
		return configException("Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.")
	case p.InterBrokerListenerName != nil:
		name := strings.ToUpper(*p.InterBrokerListenerName)
		proto, ok := c.ListenerSecurityProtocolMap[name]
		if !ok {
			return configException("Listener with name %s defined in inter.broker.listener.name not found in listener.security.protocol.map.", name)
		}
		c.InterBrokerListenerName, c.InterBrokerSecurityProtocol = name, proto
	default:
		proto, ok := common.SecurityProtocolForName(p.InterBrokerSecurityProtocol)
		if !ok {
			return configException("Invalid security protocol `%s` defined in security.inter.broker.protocol", p.InterBrokerSecurityProtocol)
		}
		c.InterBrokerListenerName, c.InterBrokerSecurityProtocol = proto.String(), proto
	}
	return nil
}
