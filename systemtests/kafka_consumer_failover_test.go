package systemtests

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/consumer"
	"github.com/zkafka/zkafka/clients/serialization"
)

// Issue 15: the group coordinator's broker (a real process) is SIGKILLed while a KafkaConsumer
// holds uncommitted records; that consumer stops without committing (a crashed application), and
// a new KafkaConsumer of the group finds the new coordinator, resumes from the committed offsets
// and reads every record: the duplicates are exactly the uncommitted window.
func TestKafkaConsumerCoordinatorFailoverSIGKILL(t *testing.T) {
	c := controllerCluster(t, cgProps())
	const (
		topic    = "kc-failover"
		group    = "kc-failover-group"
		parts    = 6
		total    = 6000
		commitAt = 2000
		crashAt  = 3000
	)
	if err := c.CreateTopic(within(t, 30*time.Second), topic, rf3(parts)); err != nil {
		t.Fatal(err)
	}
	addrs := c.BootstrapServers()
	rec := newCGRecord()
	if err := produceChunks(within(t, 60*time.Second), addrs, topic, parts, total, total, 0, nil, rec); err != nil {
		t.Fatal(err)
	}
	hw := map[int32]int64{}
	for p := int32(0); p < parts; p++ {
		hw[p] = int64(len(rec.keys[p]))
	}
	l := logrus.New()
	l.SetOutput(io.Discard)
	newConsumer := func() *consumer.KafkaConsumer[[]byte, []byte] {
		kc, err := consumer.NewKafkaConsumerWith[[]byte, []byte](map[string]string{"bootstrap.servers": strings.Join(addrs, ","), "group.id": group,
			"enable.auto.commit": "false", "auto.offset.reset": "earliest", "session.timeout.ms": "6000", "heartbeat.interval.ms": "1000",
			"max.poll.records": "100", "request.timeout.ms": "15000", "metadata.max.age.ms": "5000"},
			serialization.ByteArrayDeserializer{}, serialization.ByteArrayDeserializer{}, consumer.ConsumerOptions[[]byte, []byte]{Log: logrus.NewEntry(l)})
		if err != nil {
			t.Fatal(err)
		}
		if err := kc.Subscribe([]string{topic}, nil); err != nil {
			t.Fatal(err)
		}
		return kc
	}
	consumeUntil := func(kc *consumer.KafkaConsumer[[]byte, []byte], member string, n int, commit bool) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for rec.count(member) < n {
			if time.Now().After(deadline) {
				t.Fatalf("%s consumed %d of %d", member, rec.count(member), n)
			}
			recs, err := kc.Poll(100 * time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs.All() {
				rec.consume(member, r.Partition, r.Offset, string(r.Key))
			}
			if commit && !recs.IsEmpty() {
				if err := kc.CommitSync(nil); err != nil {
					t.Logf("commit: %v (retried with the next poll)", err)
				}
			}
		}
	}
	a := newConsumer()
	consumeUntil(a, "A", commitAt, true)
	consumeUntil(a, "A", crashAt, false)
	committedBefore, err := committedOffsets(addrs, group, topic, parts)
	if err != nil {
		t.Fatal(err)
	}
	consumedBefore := rec.next(parts)
	window := int64(0)
	for p := int32(0); p < parts; p++ {
		window += consumedBefore[p] - max(committedBefore[p], 0)
	}
	offsetsPart := common.Abs(common.JavaStringHashCode(group)) % offsetsPartitions
	leader, err := c.LeaderOf(offsetsTopic, offsetsPart)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("coordinator broker %d; consumed %v, committed %v: uncommitted window %d", leader, consumedBefore, committedBefore, window)
	t0 := time.Now()
	if err := c.Broker(leader).Kill(); err != nil {
		t.Fatal(err)
	}
	// A crashes: no commit (enable.auto.commit=false); its LeaveGroup goes to the dead broker.
	_ = a.Close(time.Second)

	b := newConsumer()
	defer b.Close(5 * time.Second) //nolint:errcheck
	consumeUntil(b, "B", int(hw[0]*parts)-crashAt+int(window), true)
	t.Logf("B read %d records after %v", rec.count("B"), time.Since(t0).Round(time.Millisecond))
	if err := b.CommitSync(nil); err != nil {
		t.Fatal(err)
	}
	dups, ndup, missing := rec.duplicates(hw)
	if len(missing) > 0 {
		t.Fatalf("never consumed: %v", missing)
	}
	if len(rec.badKeys) > 0 {
		t.Fatalf("consumed messages differ from the produced ones: %v", rec.badKeys)
	}
	t.Logf("%d duplicates %v, uncommitted window at the kill %d", ndup, dups, window)
	if int64(ndup) != window {
		t.Fatalf("%d duplicates, want the %d messages consumed after the last commit before the kill", ndup, window)
	}
	committed, err := committedOffsets(c.RunningBootstrapServers(), group, topic, parts)
	if err != nil || !sameOffsets(committed, hw) {
		t.Fatalf("committed %v (%v), want %v", committed, err, hw)
	}
}
