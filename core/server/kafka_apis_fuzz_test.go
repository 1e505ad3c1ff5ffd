package server

import (
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/network"
)

// FuzzKafkaApisHandle feeds every request the network layer would accept (any key and version,
// any body that parses) to a broker that leads topic "t", and requires an answer (or a close)
// for each without a recovered panic.
func FuzzKafkaApisHandle(f *testing.F) {
	for k := protocol.ApiKeys(0); k <= protocol.MaxApiKey; k++ {
		for v := protocol.OldestVersion(k); v <= protocol.LatestVersion(k); v++ {
			m, err := protocol.NewRequest(k, v)
			if err != nil {
				continue
			}
			f.Add(int16(k), v, m.AppendTo(nil))
		}
	}
	f.Add(int16(protocol.Produce), int16(2), produceReq("t", 1, map[int32]record.Records{0: record.NewMemoryRecords([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 30, 1, 2})}).AppendTo(nil))
	f.Add(int16(protocol.ListOffsets), int16(0), (&protocol.ListOffsetRequest{Topics: []protocol.ListOffsetRequestTopic{{Topic: "t",
		Partitions: []protocol.ListOffsetRequestTopicPartition{{Partition: 0, Timestamp: -1, MaxNumOffsets: -5}}}}}).AppendTo(nil))
	f.Add(int16(protocol.Fetch), int16(3), (&protocol.FetchRequest{Version: 3, ReplicaID: -1, MaxBytes: -1, Topics: []protocol.FetchRequestTopic{{Topic: "t",
		Partitions: []protocol.FetchRequestTopicPartition{{Partition: 0, FetchOffset: -7, MaxBytes: -3}}}}}).AppendTo(nil))
	e := newApisEnv(f, nil)
	e.lead(f, "t", 2, []int32{0})
	hook := &captureHook{}
	e.apis.logger.Logger.AddHook(hook)
	f.Fuzz(func(t *testing.T, key, version int16, body []byte) {
		h := protocol.RequestHeader{ApiKey: protocol.ApiKeys(key), ApiVersion: version, CorrelationID: 1}
		m, err := protocol.ParseRequest(h, body)
		if err != nil {
			return // the Processor closes the connection
		}
		if h.ApiKey == protocol.LeaderAndIsr || h.ApiKey == protocol.UpdateMetadata || h.ApiKey == protocol.StopReplica {
			return // controller requests would change the fixture; they are covered by unit tests
		}
		id := "fuzz"
		req := &network.Request{ConnectionID: "c", ListenerName: "PLAINTEXT", Header: h, Body: m}
		req.Header.ClientID = &id
		before := e.ch.count()
		e.apis.Handle(req)
		// Produce acks=-1 may wait in the purgatory; everything else answers at once.
		if pr, ok := m.(*protocol.ProduceRequest); !(ok && pr.Acks == -1) && h.ApiKey != protocol.Fetch && e.ch.count() == before {
			t.Fatalf("%s v%d: no answer", h.ApiKey, version)
		}
		e.rm.delayedProducePurgatory.AdvanceClock(1 << 31)
		e.rm.delayedFetchPurgatory.AdvanceClock(1 << 31)
		for e.ch.count() > 0 {
			r := e.ch.take(t)
			if r.Send != nil {
				var sink countingWriter
				if _, err := r.Send.WriteTo(&sink); err != nil {
					t.Fatalf("%s v%d: writing the answer: %v", h.ApiKey, version, err)
				}
			}
		}
		hook.mu.Lock()
		defer hook.mu.Unlock()
		for _, l := range hook.lines {
			if strings.Contains(l, "Error when handling request") && strings.Contains(l, "panic:") {
				t.Fatalf("%s v%d: %s", h.ApiKey, version, l)
			}
		}
	})
}
