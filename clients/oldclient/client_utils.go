package oldclient

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// BrokerEndPoint is a broker reduced to one address.
//
// Kafka 0.10.2: kafka.cluster.BrokerEndPoint. core/cluster has the broker's own copy; the Scala
// clients sit below core in zkafka's ranks (the old producer may not import core/cluster), so
// they carry this one, with the same fields and formatting.
type BrokerEndPoint struct {
	ID   int32
	Host string
	Port int32
}

// ConnectionString is host:port.
func (b BrokerEndPoint) ConnectionString() string {
	return net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
}

// String formats as BrokerEndPoint(id,host,port).
func (b BrokerEndPoint) String() string {
	return fmt.Sprintf("BrokerEndPoint(%d,%s,%d)", b.ID, b.Host, b.Port)
}

var brokerEndPointRegexp = regexp.MustCompile(`^\[?([0-9a-zA-Z\-%._:]*)\]?:([0-9]+)$`)

// CreateBrokerEndPoint parses "host:port" (an IPv6 host in brackets).
//
// Kafka 0.10.2: BrokerEndPoint.createBrokerEndPoint.
func CreateBrokerEndPoint(brokerID int32, connectionString string) (BrokerEndPoint, error) {
	m := brokerEndPointRegexp.FindStringSubmatch(connectionString)
	if m == nil {
		return BrokerEndPoint{}, fmt.Errorf("Unable to parse %s to a broker endpoint", connectionString)
	}
	port, err := strconv.ParseInt(m[2], 10, 32)
	if err != nil {
		return BrokerEndPoint{}, fmt.Errorf("Unable to parse %s to a broker endpoint", connectionString)
	}
	return BrokerEndPoint{ID: brokerID, Host: m[1], Port: int32(port)}, nil
}

// ParseCsvList splits on commas with surrounding blanks and drops empty entries.
//
// Kafka 0.10.2: kafka.utils.CoreUtils.parseCsvList.
func ParseCsvList(s string) []string {
	var out []string
	for _, p := range regexp.MustCompile(`\s*,\s*`).Split(s, -1) {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParseBrokerList parses "host1:port1,host2:port2"; the brokers get ids 0, 1, ... in order.
//
// Kafka 0.10.2: kafka.client.ClientUtils.parseBrokerList.
func ParseBrokerList(brokerList string) ([]BrokerEndPoint, error) {
	var out []BrokerEndPoint
	for i, addr := range ParseCsvList(brokerList) {
		b, err := CreateBrokerEndPoint(int32(i), addr)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// formatBrokers renders a broker sequence as Scala prints an ArrayBuffer of BrokerEndPoints.
func formatBrokers(bs []BrokerEndPoint) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = b.String()
	}
	return "ArrayBuffer(" + strings.Join(parts, ", ") + ")"
}

// formatTopicSet renders topics as a Scala Set.
func formatTopicSet(topics []string) string { return "Set(" + strings.Join(topics, ", ") + ")" }

// FetchTopicMetadata asks the brokers, in random order, for the topics' metadata with a v0
// Metadata request (an empty list means every topic), until one answers.
//
// Kafka 0.10.2: kafka.client.ClientUtils.fetchTopicMetadata. Kafka sends through a SyncProducer
// built for each broker (request.timeout.ms = timeout); the exchange is the same over a
// BlockingChannel, which is what SyncProducer wraps.
func FetchTopicMetadata(ctx context.Context, topics []string, brokers []BrokerEndPoint, clientID string, timeout time.Duration,
	correlationID int32, log *logrus.Entry) (*protocol.MetadataResponse, error) {
	if log == nil {
		log = discard()
	}
	shuffled := append([]BrokerEndPoint(nil), brokers...)
	rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	var last error
	for _, b := range shuffled {
		log.Infof("Fetching metadata from broker %s with correlation id %d for %d topic(s) %s", b, correlationID, len(topics), formatTopicSet(topics))
		resp, err := fetchMetadataFrom(ctx, b, topics, clientID, timeout)
		if err == nil {
			log.Debugf("Successfully fetched metadata for %d topic(s) %s", len(topics), formatTopicSet(topics))
			return resp, nil
		}
		log.WithError(err).Warnf("Fetching topic metadata with correlation id %d for topics [%s] from broker [%s] failed",
			correlationID, formatTopicSet(topics), b)
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("fetching topic metadata for topics [%s] from broker [%s] failed: %w",
		formatTopicSet(topics), formatBrokers(shuffled), orNoBrokers(last))
}

func orNoBrokers(err error) error {
	if err == nil {
		return errors.New("no broker to ask")
	}
	return err
}

func fetchMetadataFrom(ctx context.Context, b BrokerEndPoint, topics []string, clientID string, timeout time.Duration) (*protocol.MetadataResponse, error) {
	c := NewBlockingChannel(b.Host, b.Port, clientID, timeout)
	if err := c.Connect(); err != nil {
		return nil, err
	}
	defer c.Disconnect()
	if topics == nil {
		topics = []string{}
	}
	resp := &protocol.MetadataResponse{Version: 0}
	if err := c.SendContext(ctx, &protocol.MetadataRequest{Version: 0, Topics: topics}, resp); err != nil {
		return nil, err
	}
	return resp, nil
}

// GetPlaintextBrokerEndPoints returns, for every registered broker in id order, its first
// endpoint with the PLAINTEXT security protocol.
//
// Kafka 0.10.2: kafka.client.ClientUtils.getPlaintextBrokerEndPoints.
func GetPlaintextBrokerEndPoints(zk *zkutils.ZkUtils) ([]BrokerEndPoint, error) {
	brokers, err := zk.GetAllBrokersInCluster()
	if err != nil {
		return nil, err
	}
	sort.Slice(brokers, func(i, j int) bool { return brokers[i].ID < brokers[j].ID })
	out := make([]BrokerEndPoint, 0, len(brokers))
	for _, b := range brokers {
		found := false
		for _, e := range b.EndPoints {
			if e.SecurityProtocol == common.PLAINTEXT {
				out = append(out, BrokerEndPoint{ID: b.ID, Host: e.Host, Port: e.Port})
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("End point with security protocol PLAINTEXT not found for broker %d", b.ID)
		}
	}
	return out, nil
}

// ChannelToAnyBroker connects to a random registered broker, trying again (every backoff)
// until one accepts or ctx is done.
//
// Kafka 0.10.2: kafka.client.ClientUtils.channelToAnyBroker, which loops without pause or end;
// here a round in which no broker answered waits backoff, and ctx ends the loop.
func ChannelToAnyBroker(ctx context.Context, zk *zkutils.ZkUtils, clientID string, socketTimeout, backoff time.Duration,
	log *logrus.Entry) (*BlockingChannel, error) {
	if log == nil {
		log = discard()
	}
	for {
		brokers, err := GetPlaintextBrokerEndPoints(zk)
		if err != nil {
			log.WithError(err).Info("Error while reading the brokers")
		}
		rand.Shuffle(len(brokers), func(i, j int) { brokers[i], brokers[j] = brokers[j], brokers[i] })
		for _, b := range brokers {
			log.Tracef("Connecting to broker %s:%d.", b.Host, b.Port)
			c := NewBlockingChannel(b.Host, b.Port, clientID, socketTimeout)
			if err := c.Connect(); err != nil {
				log.Infof("Error while creating channel to %s:%d.", b.Host, b.Port)
				continue
			}
			log.Debugf("Created channel to broker %s:%d.", c.Host(), c.Port())
			return c, nil
		}
		if err := sleepCtx(ctx, backoff); err != nil {
			return nil, err
		}
	}
}

// ChannelToOffsetManager finds the group's coordinator (GroupCoordinator v0 to any broker) and
// returns a channel to it, retrying every retryBackoff until it succeeds or ctx is done.
//
// Kafka 0.10.2: kafka.client.ClientUtils.channelToOffsetManager.
func ChannelToOffsetManager(ctx context.Context, group string, zk *zkutils.ZkUtils, clientID string,
	socketTimeout, retryBackoff time.Duration, log *logrus.Entry) (*BlockingChannel, error) {
	if log == nil {
		log = discard()
	}
	query, err := ChannelToAnyBroker(ctx, zk, clientID, socketTimeout, retryBackoff, log)
	if err != nil {
		return nil, err
	}
	for {
		var coordinator protocol.GroupCoordinatorResponseCoordinator
		for found := false; !found; {
			if !query.IsConnected() {
				if query, err = ChannelToAnyBroker(ctx, zk, clientID, socketTimeout, retryBackoff, log); err != nil {
					return nil, err
				}
			}
			log.Debugf("Querying %s:%d to locate offset manager for %s.", query.Host(), query.Port(), group)
			resp := &protocol.GroupCoordinatorResponse{Version: 0}
			if err := query.SendContext(ctx, &protocol.GroupCoordinatorRequest{Version: 0, GroupID: group}, resp); err != nil {
				log.Infof("Failed to fetch consumer metadata from %s:%d.", query.Host(), query.Port())
				query.Disconnect()
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue
			}
			log.Debugf("Consumer metadata response: %+v", resp)
			if resp.ErrorCode == 0 {
				coordinator, found = resp.Coordinator, true
				continue
			}
			log.Debugf("Query to %s:%d to locate offset manager for %s failed - will retry in %d milliseconds.",
				query.Host(), query.Port(), group, retryBackoff.Milliseconds())
			if err := sleepCtx(ctx, retryBackoff); err != nil {
				query.Disconnect()
				return nil, err
			}
		}
		if coordinator.Host == query.Host() && coordinator.Port == query.Port() {
			return query, nil
		}
		connectString := net.JoinHostPort(coordinator.Host, strconv.Itoa(int(coordinator.Port)))
		log.Debugf("Connecting to offset manager %s.", connectString)
		c := NewBlockingChannel(coordinator.Host, coordinator.Port, clientID, socketTimeout)
		if err := c.Connect(); err != nil {
			log.Infof("Error while connecting to %s.", connectString)
			if err := sleepCtx(ctx, retryBackoff); err != nil {
				query.Disconnect()
				return nil, err
			}
			continue
		}
		query.Disconnect()
		return c, nil
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func discard() *logrus.Entry {
	l := logrus.New()
	l.SetLevel(logrus.PanicLevel)
	return logrus.NewEntry(l)
}
