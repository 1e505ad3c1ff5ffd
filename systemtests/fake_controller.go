package systemtests

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// FakeController does by hand what issue 6's KafkaController does for a new topic
// (onNewPartitionCreation): it writes the replica assignment and each partition's leader/ISR
// state to ZooKeeper, then sends LeaderAndIsr to the replicas and UpdateMetadata to every live
// broker. The first replica leads and the ISR is the whole replica list.
//
// It exists only until the real controller lands: tests call it through Cluster.CreateTopic, so
// deleting this file and pointing CreateTopic at `zkafka topics --create` (or a plain znode write
// that the controller picks up) is the whole migration.
//
// Kafka 0.10.2: the request-sending half of kafka.controller.KafkaController.onNewPartitionCreation
// (PartitionStateMachine NewPartition → OnlinePartition, ControllerBrokerRequestBatch).
type FakeController struct {
	Cluster *Cluster
	// ControllerID is the id the requests carry; the broker does not check it against /controller.
	ControllerID int32
	// Epoch is the controller epoch sent and written into partition state (kept >= what the
	// brokers have seen: a broker refuses requests from an older epoch).
	Epoch int32
	// Timeout bounds each request.
	Timeout time.Duration

	leaderEpochs map[string]int32
}

// NewFakeController returns a controller for c with id 0 and epoch 1.
func NewFakeController(c *Cluster) *FakeController {
	return &FakeController{Cluster: c, ControllerID: 0, Epoch: 1, Timeout: 30 * time.Second, leaderEpochs: map[string]int32{}}
}

// CreateTopic writes /brokers/topics/<topic> and every partition state, and makes the first
// replica of each partition its leader (Elect).
func (f *FakeController) CreateTopic(ctx context.Context, topic string, assignment map[int32][]int32) error {
	z, err := f.Cluster.Zk()
	if err != nil {
		return err
	}
	if err := z.CreatePersistentPath(zkutils.TopicPath(topic), zkutils.ReplicaAssignmentZkData(assignment)); err != nil {
		return fmt.Errorf("create topic znode: %w", err)
	}
	return f.Elect(ctx, topic, assignment)
}

// Elect (re)writes each partition's state with the first replica as leader and a bumped leader
// epoch, then sends LeaderAndIsr and UpdateMetadata. Call it again after a broker restart: a
// restarted broker leads nothing until told.
func (f *FakeController) Elect(ctx context.Context, topic string, assignment map[int32][]int32) error {
	z, err := f.Cluster.Zk()
	if err != nil {
		return err
	}
	parts := make([]int32, 0, len(assignment))
	for p := range assignment {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	var states []protocol.LeaderAndIsrRequestPartitionStates
	for _, p := range parts {
		replicas := assignment[p]
		if len(replicas) == 0 {
			return fmt.Errorf("partition %d has no replicas", p)
		}
		key := topic + "-" + strconv.Itoa(int(p))
		epoch, seen := f.leaderEpochs[key]
		if seen {
			epoch++
		}
		f.leaderEpochs[key] = epoch
		lai := zkutils.NewLeaderAndIsr(replicas[0], replicas)
		lai.LeaderEpoch = epoch
		path := zkutils.TopicPartitionLeaderAndIsrPath(topic, p)
		if err := z.UpdatePersistentPath(path, zkutils.LeaderAndIsrZkData(lai, f.Epoch)); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		_, st, err := z.ReadData(path)
		if err != nil {
			return fmt.Errorf("read back %s: %w", path, err)
		}
		zkVersion := st.Version
		states = append(states, protocol.LeaderAndIsrRequestPartitionStates{
			Topic: topic, Partition: p, ControllerEpoch: f.Epoch, Leader: replicas[0], LeaderEpoch: epoch,
			Isr: replicas, ZkVersion: zkVersion, Replicas: replicas,
		})
	}
	live, err := f.liveBrokers()
	if err != nil {
		return err
	}
	// LeaderAndIsr to every replica of the topic.
	for _, b := range live {
		var mine []protocol.LeaderAndIsrRequestPartitionStates
		leaders := map[int32]bool{}
		for _, s := range states {
			for _, r := range s.Replicas {
				if r == b.ID {
					mine = append(mine, s)
					leaders[s.Leader] = true
				}
			}
		}
		if len(mine) == 0 {
			continue
		}
		req := &protocol.LeaderAndIsrRequest{Version: 0, ControllerID: f.ControllerID, ControllerEpoch: f.Epoch, PartitionStates: mine}
		for _, l := range live {
			if leaders[l.ID] {
				ep := plaintext(l)
				req.LiveLeaders = append(req.LiveLeaders, protocol.LeaderAndIsrRequestLiveLeaders{ID: l.ID, Host: ep.Host, Port: ep.Port})
			}
		}
		resp, err := f.send(ctx, b, req)
		if err != nil {
			return err
		}
		r := resp.(*protocol.LeaderAndIsrResponse)
		if r.ErrorCode != 0 {
			return fmt.Errorf("LeaderAndIsr to broker %d: %v", b.ID, protocol.ErrorForCode(r.ErrorCode))
		}
		for _, p := range r.Partitions {
			if p.ErrorCode != 0 {
				return fmt.Errorf("LeaderAndIsr to broker %d: [%s,%d]: %v", b.ID, p.Topic, p.Partition, protocol.ErrorForCode(p.ErrorCode))
			}
		}
	}
	return f.UpdateMetadata(ctx, states)
}

// UpdateMetadata sends the partition states and the live broker list (v3, with listener names)
// to every live broker.
func (f *FakeController) UpdateMetadata(ctx context.Context, states []protocol.LeaderAndIsrRequestPartitionStates) error {
	live, err := f.liveBrokers()
	if err != nil {
		return err
	}
	req := &protocol.UpdateMetadataRequest{Version: 3, ControllerID: f.ControllerID, ControllerEpoch: f.Epoch}
	for _, s := range states {
		req.PartitionStates = append(req.PartitionStates, protocol.UpdateMetadataRequestPartitionStates(s))
	}
	for _, b := range live {
		lb := protocol.UpdateMetadataRequestLiveBrokers{ID: b.ID}
		if b.Rack != "" {
			rack := b.Rack
			lb.Rack = &rack
		}
		for _, ep := range b.EndPoints {
			lb.EndPoints = append(lb.EndPoints, protocol.UpdateMetadataRequestEndPoints{
				Port: ep.Port, Host: ep.Host, ListenerName: ep.ListenerName, SecurityProtocolType: securityProtocolID(ep.SecurityProtocol),
			})
		}
		req.LiveBrokers = append(req.LiveBrokers, lb)
	}
	for _, b := range live {
		resp, err := f.send(ctx, b, req)
		if err != nil {
			return err
		}
		if code := resp.(*protocol.UpdateMetadataResponse).ErrorCode; code != 0 {
			return fmt.Errorf("UpdateMetadata to broker %d: %v", b.ID, protocol.ErrorForCode(code))
		}
	}
	return nil
}

func securityProtocolID(name string) int16 {
	switch name {
	case "SSL":
		return 1
	case "SASL_PLAINTEXT":
		return 2
	case "SASL_SSL":
		return 3
	}
	return 0
}

func plaintext(b zkutils.BrokerInfo) zkutils.RegisteredEndPoint {
	for _, ep := range b.EndPoints {
		if ep.SecurityProtocol == "PLAINTEXT" {
			return ep
		}
	}
	return zkutils.RegisteredEndPoint{Host: b.Host, Port: b.Port}
}

// liveBrokers reads /brokers/ids the way the controller's BrokerChangeListener does.
func (f *FakeController) liveBrokers() ([]zkutils.BrokerInfo, error) {
	z, err := f.Cluster.Zk()
	if err != nil {
		return nil, err
	}
	out, err := z.GetAllBrokersInCluster()
	if err != nil {
		return nil, fmt.Errorf("read /brokers/ids: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (f *FakeController) send(ctx context.Context, b zkutils.BrokerInfo, req protocol.Message) (protocol.Message, error) {
	ep := plaintext(b)
	addr := fmt.Sprintf("%s:%d", ep.Host, ep.Port)
	var lastErr error
	for attempt := 0; attempt < 20; attempt++ {
		w, err := DialWire(addr, "fake-controller", f.Timeout)
		if err == nil {
			resp, err := w.Roundtrip(req)
			w.Close()
			if err == nil {
				return resp, nil
			}
			lastErr = err
		} else {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("%s to broker %d at %s: %w", req.Key(), b.ID, addr, lastErr)
}

// CreateTopic creates topic with the given assignment and waits until every leader serves it.
// Until issue 6's controller lands it goes through the FakeController.
func (c *Cluster) CreateTopic(ctx context.Context, topic string, assignment map[int32][]int32) (*FakeController, error) {
	fc := NewFakeController(c)
	if err := fc.CreateTopic(ctx, topic, assignment); err != nil {
		return nil, err
	}
	return fc, nil
}
