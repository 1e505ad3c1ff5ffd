package consumer

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/serialization"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Kafka's defaults and the constructor's checks.
func TestConsumerConfigDefaultsAndValidation(t *testing.T) {
	c, err := NewConsumerConfig(map[string]string{"bootstrap.servers": "h:1",
		"key.deserializer": serdePkg + "ByteArrayDeserializer", "value.deserializer": serdePkg + "StringDeserializer"})
	if err != nil {
		t.Fatal(err)
	}
	if c.SessionTimeoutMs != 10000 || c.HeartbeatIntervalMs != 3000 || c.MaxPollIntervalMs != 300000 || c.MaxPollRecords != 500 ||
		c.FetchMaxBytes != 52428800 || c.MaxPartitionFetchBytes != 1048576 || c.RequestTimeoutMs != 305000 || c.AutoOffsetReset != "latest" ||
		!c.EnableAutoCommit || c.AutoCommitIntervalMs != 5000 || c.ReceiveBufferBytes != 65536 || c.FetchMaxWaitMs != 500 ||
		!reflect.DeepEqual(c.PartitionAssignmentStrategy, []string{RangeAssignorClass}) || !c.CheckCrcs {
		t.Fatalf("defaults: %+v", c)
	}
	for _, tc := range []struct {
		props map[string]string
		msg   string
	}{
		{map[string]string{"auto.offset.reset": "smallest"}, "Invalid value smallest for configuration auto.offset.reset: String must be one of: latest, earliest, none"},
		{map[string]string{"request.timeout.ms": "10000"}, "request.timeout.ms should be greater than session.timeout.ms and fetch.max.wait.ms"},
		{map[string]string{"partition.assignment.strategy": "x.Y"}, "Invalid value x.Y for configuration partition.assignment.strategy: Class x.Y could not be found."},
		{map[string]string{"max.poll.records": "0"}, "Invalid value 0 for configuration max.poll.records: Value must be at least 1"},
	} {
		props := map[string]string{"bootstrap.servers": "h:1", "key.deserializer": "k", "value.deserializer": "v"}
		for k, v := range tc.props {
			props[k] = v
		}
		_, err := NewConsumerConfig(props)
		var ce *config.ConfigException
		if !errors.As(err, &ce) || err.Error() != tc.msg {
			t.Errorf("%v: got %v, want %q", tc.props, err, tc.msg)
		}
	}
	// A deserializer class of another type than the consumer's is refused at construction.
	_, err = NewKafkaConsumer[string, []byte](map[string]string{"bootstrap.servers": "h:1", "key.deserializer": serdePkg + "IntegerDeserializer",
		"value.deserializer": serdePkg + "ByteArrayDeserializer"}, nil, nil)
	if err == nil || err.Error() != "Failed to construct kafka consumer: Invalid value "+serdePkg+"IntegerDeserializer for configuration key.deserializer: Class "+serdePkg+"IntegerDeserializer could not be found." {
		t.Fatal(err)
	}
	// heartbeat.interval.ms must be below session.timeout.ms.
	_, err = NewKafkaConsumer[[]byte, []byte](map[string]string{"bootstrap.servers": "127.0.0.1:1", "heartbeat.interval.ms": "10000"},
		serialization.ByteArrayDeserializer{}, serialization.ByteArrayDeserializer{})
	if err == nil || err.Error() != "Failed to construct kafka consumer: Heartbeat must be set lower than the session timeout" {
		t.Fatal(err)
	}
}

func tps(s ...any) []common.TopicPartition {
	var out []common.TopicPartition
	for i := 0; i < len(s); i += 2 {
		out = append(out, common.TopicPartition{Topic: s[i].(string), Partition: int32(s[i+1].(int))})
	}
	return out
}

// Kafka's RangeAssignorTest and RoundRobinAssignorTest cases.
func TestAssignors(t *testing.T) {
	subs := func(m map[string][]string) map[string]Subscription {
		out := map[string]Subscription{}
		for k, v := range m {
			out[k] = Subscription{Topics: v}
		}
		return out
	}
	get := func(a PartitionAssignor, parts map[string]int, s map[string][]string) map[string][]common.TopicPartition {
		out := map[string][]common.TopicPartition{}
		for m, as := range a.Assign(parts, subs(s)) {
			out[m] = as.Partitions
		}
		return out
	}
	r := NewRangeAssignor()
	if r.Name() != "range" || NewRoundRobinAssignor().Name() != "roundrobin" {
		t.Fatal("names")
	}
	// two topics of 3 partitions, two members: c0 takes 0,1 of each, c1 takes 2
	got := get(r, map[string]int{"t1": 3, "t2": 3}, map[string][]string{"c0": {"t1", "t2"}, "c1": {"t1", "t2"}})
	want := map[string][]common.TopicPartition{"c0": tps("t1", 0, "t1", 1, "t2", 0, "t2", 1), "c1": tps("t1", 2, "t2", 2)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("range: %v", got)
	}
	// a member subscribed to a topic without metadata gets nothing
	got = get(r, map[string]int{}, map[string][]string{"c0": {"t1"}})
	if len(got["c0"]) != 0 {
		t.Fatalf("range no metadata: %v", got)
	}
	rr := NewRoundRobinAssignor()
	got = get(rr, map[string]int{"t1": 3, "t2": 3}, map[string][]string{"c0": {"t1", "t2"}, "c1": {"t1", "t2"}})
	want = map[string][]common.TopicPartition{"c0": tps("t1", 0, "t1", 2, "t2", 1), "c1": tps("t1", 1, "t2", 0, "t2", 2)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("roundrobin: %v", got)
	}
	// members with different subscriptions: only subscribed members are dealt a topic's partitions
	got = get(rr, map[string]int{"t1": 1, "t2": 2, "t3": 3}, map[string][]string{"c0": {"t1"}, "c1": {"t1", "t2"}, "c2": {"t1", "t2", "t3"}})
	want = map[string][]common.TopicPartition{"c0": tps("t1", 0), "c1": tps("t2", 0), "c2": tps("t2", 1, "t3", 0, "t3", 1, "t3", 2)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("roundrobin mixed: %v", got)
	}
	// 12 partitions over 3 members, both ways
	for _, a := range []PartitionAssignor{r, rr} {
		got = get(a, map[string]int{"t": 12}, map[string][]string{"a": {"t"}, "b": {"t"}, "c": {"t"}})
		seen := map[common.TopicPartition]bool{}
		for _, ps := range got {
			if len(ps) != 4 {
				t.Fatalf("%s: %v", a.Name(), got)
			}
			for _, p := range ps {
				seen[p] = true
			}
		}
		if len(seen) != 12 {
			t.Fatalf("%s: %v", a.Name(), got)
		}
	}
}

func TestSubscriptionStateAndHeartbeat(t *testing.T) {
	s := NewSubscriptionState(ResetEarliest)
	if err := s.Subscribe([]string{"a"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.AssignFromUser(tps("a", 0)); !errors.Is(err, ErrSubscriptionMixed) {
		t.Fatal(err)
	}
	s.AssignFromSubscribed(tps("a", 0, "a", 1))
	if s.HasAllFetchPositions() || len(s.MissingFetchPositions()) != 2 {
		t.Fatal("positions")
	}
	tp := common.TopicPartition{Topic: "a", Partition: 1}
	s.Seek(tp, 5)
	s.Pause(tp)
	if s.IsFetchable(tp) || !s.IsPaused(tp) || *s.Position(tp) != 5 {
		t.Fatal("pause")
	}
	s.NeedOffsetReset(tp, nil)
	if s.Position(tp) != nil || s.ResetStrategy(tp) != ResetEarliest {
		t.Fatal("reset")
	}
	if _, err := NewHeartbeat(100, 100, 1000, 10, 0); err == nil {
		t.Fatal("heartbeat >= session accepted")
	}
	h, _ := NewHeartbeat(1000, 300, 5000, 10, 0)
	if h.ShouldHeartbeat(100) || !h.ShouldHeartbeat(301) || h.TimeToNextHeartbeat(100) != 200 {
		t.Fatal("heartbeat due")
	}
	h.SentHeartbeat(400)
	h.FailHeartbeat()
	if !h.ShouldHeartbeat(411) {
		t.Fatal("retry backoff after a failed heartbeat")
	}
	if h.SessionTimeoutExpired(900) || !h.SessionTimeoutExpired(1001) || h.PollTimeoutExpired(5000) || !h.PollTimeoutExpired(5001) {
		t.Fatal("timeouts")
	}
}

func TestRequestFuture(t *testing.T) {
	f := NewRequestFuture[int]()
	var got []string
	f.AddListener(func(v int, err error) { got = append(got, fmt.Sprint(v, err)) })
	g := Compose(f, func(v int, out *RequestFuture[string]) { out.Complete(fmt.Sprint("x", v)) })
	f.Complete(3)
	if !f.Succeeded() || g.Value() != "x3" || len(got) != 1 || got[0] != "3 <nil>" {
		t.Fatal(got, g.Value())
	}
	h := Compose(FailedFuture[int](ErrDisconnect), func(int, *RequestFuture[int]) {})
	if !h.Failed() || !h.IsRetriable() {
		t.Fatal("failure not propagated")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("second completion accepted")
		}
	}()
	f.Complete(4)
}

// Wakeup before Poll (or during it, from another goroutine) makes Poll return ErrWakeup even
// while it waits for a broker that does not answer; the consumer stays usable and closes.
func TestWakeupWithoutBroker(t *testing.T) {
	c, err := NewKafkaConsumerWith[[]byte, []byte](map[string]string{"bootstrap.servers": "127.0.0.1:1", "auto.offset.reset": "earliest"},
		serialization.ByteArrayDeserializer{}, serialization.ByteArrayDeserializer{}, ConsumerOptions[[]byte, []byte]{Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Poll(0); !errors.Is(err, ErrNoSubscription) {
		t.Fatalf("poll before assign: %v", err)
	}
	if err := c.Assign(tps("t", 0)); err != nil {
		t.Fatal(err)
	}
	c.Wakeup()
	if _, err := c.Poll(time.Hour); !errors.Is(err, ErrWakeup) {
		t.Fatalf("poll after wakeup: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := c.Poll(time.Hour); done <- err }()
	time.Sleep(100 * time.Millisecond)
	c.Wakeup()
	select {
	case err := <-done:
		if !errors.Is(err, ErrWakeup) {
			t.Fatalf("poll woken up: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("poll not woken up")
	}
	if err := c.Close(time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Poll(0); !errors.Is(err, ErrConsumerClosed) {
		t.Fatalf("poll after close: %v", err)
	}
}
