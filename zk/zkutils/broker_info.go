package zkutils

import (
	"encoding/json"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/clients/common"
)

// RegisteredEndPoint is one advertised listener of a broker registration.
//
// Kafka 0.10.2: kafka.cluster.EndPoint (the full type with its listener helpers
// lives in core/cluster; zkutils keeps only what the znode holds). Host is ""
// for "all interfaces".
type RegisteredEndPoint struct {
	ListenerName     string
	SecurityProtocol common.SecurityProtocol
	Host             string
	Port             int32
}

// ConnectionString is LISTENER://host:port with an IPv6 host in brackets
// (EndPoint.connectionString).
func (e RegisteredEndPoint) ConnectionString() string {
	if e.Host == "" {
		return e.ListenerName + "://:" + strconv.FormatInt(int64(e.Port), 10)
	}
	hostPort := e.Host + ":" + strconv.FormatInt(int64(e.Port), 10)
	if strings.Contains(e.Host, ":") {
		hostPort = net.JoinHostPort(e.Host, strconv.FormatInt(int64(e.Port), 10))
	}
	return e.ListenerName + "://" + hostPort
}

var endPointRegexp = regexp.MustCompile(`^(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)`)

// ParseEndPoint parses a connection string with an optional listener → security
// protocol map; without one the listener name must be a security protocol name.
//
// Kafka 0.10.2: EndPoint.createEndPoint.
func ParseEndPoint(connection string, protocolMap map[string]common.SecurityProtocol) (RegisteredEndPoint, error) {
	m := endPointRegexp.FindStringSubmatch(connection)
	if m == nil {
		return RegisteredEndPoint{}, fmt.Errorf("unable to parse %s to a broker endpoint", connection)
	}
	listener := strings.ToUpper(m[1]) // ListenerName.normalised
	port, err := strconv.ParseInt(m[3], 10, 32)
	if err != nil {
		return RegisteredEndPoint{}, fmt.Errorf("unable to parse %s to a broker endpoint: %w", connection, err)
	}
	var proto common.SecurityProtocol
	var ok bool
	if protocolMap != nil {
		proto, ok = protocolMap[listener]
	} else {
		proto, ok = common.SecurityProtocolForName(listener)
	}
	if !ok {
		return RegisteredEndPoint{}, fmt.Errorf("no security protocol defined for listener %s", listener)
	}
	return RegisteredEndPoint{ListenerName: listener, SecurityProtocol: proto, Host: m[2], Port: int32(port)}, nil
}

// BrokerInfo is the content of /brokers/ids/<id>: what Broker.toJson writes and
// Broker.createBroker reads.
//
// Kafka 0.10.2: kafka.cluster.Broker (its ZooKeeper form; core/cluster.Broker is
// built from it). Version 4 is written by 0.10.2 (2 for inter-broker protocol
// older than 0.10.0-IV1); versions 1 to 4 are read.
type BrokerInfo struct {
	ID        int32 // from the znode name, not the JSON
	Version   int32
	Host      string // first PLAINTEXT endpoint's host, "" (JSON null) if none
	Port      int32  // its port, -1 if none
	EndPoints []RegisteredEndPoint
	JmxPort   int32
	Timestamp string // registration time in ms, as the string Kafka writes
	Rack      string // "" when absent or null
}

// NewBrokerInfo fills Host/Port from the first PLAINTEXT endpoint, the way
// KafkaHealthcheck.register does.
func NewBrokerInfo(id, version int32, endPoints []RegisteredEndPoint, jmxPort int32, rack string, timestampMs int64) BrokerInfo {
	b := BrokerInfo{ID: id, Version: version, Port: -1, EndPoints: endPoints, JmxPort: jmxPort,
		Timestamp: strconv.FormatInt(timestampMs, 10), Rack: rack}
	for _, e := range endPoints {
		if e.SecurityProtocol == common.PLAINTEXT {
			b.Host, b.Port = e.Host, e.Port
			break
		}
	}
	return b
}

// Encode writes the JSON exactly as Broker.toJson: a mutable Scala map (hash
// order), rack only from version 3, the listener map only from version 4.
func (b BrokerInfo) Encode() []byte {
	o := &jsonObject{}
	o.put("version", b.Version)
	if b.Host == "" {
		o.put("host", nil)
	} else {
		o.put("host", b.Host)
	}
	o.put("port", b.Port)
	eps := make([]string, len(b.EndPoints))
	for i, e := range b.EndPoints {
		eps[i] = e.ConnectionString()
	}
	o.put("endpoints", eps)
	o.put("jmx_port", b.JmxPort)
	o.put("timestamp", b.Timestamp)
	if b.Rack != "" && b.Version >= 3 {
		o.put("rack", b.Rack)
	}
	if b.Version >= 4 {
		// advertisedEndpoints.map(...).toMap: an immutable map, insertion order
		// up to 4 listeners, later entries overwrite earlier ones.
		lm := &jsonObject{}
		seen := map[string]int{}
		for _, e := range b.EndPoints {
			if i, ok := seen[e.ListenerName]; ok {
				lm.Values[i] = e.SecurityProtocol.String()
				continue
			}
			seen[e.ListenerName] = len(lm.Keys)
			lm.put(e.ListenerName, e.SecurityProtocol.String())
		}
		o.put("listener_security_protocol_map", lm.scalaImmutable())
	}
	return []byte(encodeJSON(o.scalaMutable()))
}

type brokerInfoJSON struct {
	Version     *int32            `json:"version"`
	Host        *string           `json:"host"`
	Port        *int32            `json:"port"`
	Endpoints   []string          `json:"endpoints"`
	JmxPort     *int32            `json:"jmx_port"`
	Timestamp   json.RawMessage   `json:"timestamp"`
	Rack        *string           `json:"rack"`
	ProtocolMap map[string]string `json:"listener_security_protocol_map"`
}

// DecodeBrokerInfo parses a registration as Broker.createBroker does: version 1
// uses host/port as one PLAINTEXT endpoint; later versions take the endpoints
// list and ignore host/port.
func DecodeBrokerInfo(id int32, data []byte) (BrokerInfo, error) {
	fail := func(err error) (BrokerInfo, error) {
		return BrokerInfo{}, fmt.Errorf("failed to parse the broker info from zookeeper: %s: %w", data, err)
	}
	if data == nil {
		return BrokerInfo{}, fmt.Errorf("broker id %d does not exist", id)
	}
	var j brokerInfoJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return fail(err)
	}
	if j.Version == nil {
		return fail(fmt.Errorf("no version"))
	}
	b := BrokerInfo{ID: id, Version: *j.Version, Port: -1, JmxPort: -1}
	if j.Host != nil {
		b.Host = *j.Host
	}
	if j.Port != nil {
		b.Port = *j.Port
	}
	if j.JmxPort != nil {
		b.JmxPort = *j.JmxPort
	}
	if j.Rack != nil {
		b.Rack = *j.Rack
	}
	if len(j.Timestamp) > 0 {
		var s string
		if err := json.Unmarshal(j.Timestamp, &s); err == nil {
			b.Timestamp = s
		} else {
			b.Timestamp = string(j.Timestamp)
		}
	}
	switch {
	case b.Version < 1:
		return fail(fmt.Errorf("unsupported version of broker registration: %d", b.Version))
	case b.Version == 1:
		if j.Host == nil || j.Port == nil {
			return fail(fmt.Errorf("version 1 registration without host/port"))
		}
		b.EndPoints = []RegisteredEndPoint{{ListenerName: "PLAINTEXT", SecurityProtocol: common.PLAINTEXT, Host: b.Host, Port: b.Port}}
	default:
		if j.Endpoints == nil {
			return fail(fmt.Errorf("no endpoints"))
		}
		var pm map[string]common.SecurityProtocol
		if j.ProtocolMap != nil {
			pm = make(map[string]common.SecurityProtocol, len(j.ProtocolMap))
			for k, v := range j.ProtocolMap {
				sp, ok := common.SecurityProtocolForName(v)
				if !ok {
					return fail(fmt.Errorf("unknown security protocol %s", v))
				}
				pm[strings.ToUpper(k)] = sp
			}
		}
		seen := map[string]bool{}
		for _, s := range j.Endpoints {
			e, err := ParseEndPoint(s, pm)
			if err != nil {
				return fail(err)
			}
			if seen[e.ListenerName] {
				return fail(fmt.Errorf("more than one end point with listener name %s", e.ListenerName))
			}
			seen[e.ListenerName] = true
			b.EndPoints = append(b.EndPoints, e)
		}
	}
	return b, nil
}

// EndPoint returns the endpoint of a listener, if the broker advertises it.
func (b BrokerInfo) EndPoint(listenerName string) (RegisteredEndPoint, bool) {
	for _, e := range b.EndPoints {
		if e.ListenerName == listenerName {
			return e, true
		}
	}
	return RegisteredEndPoint{}, false
}
