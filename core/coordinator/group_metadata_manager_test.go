package coordinator

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/metrics"
)

// logLines decodes every message of the partition's segment files (read back from disk) with
// the offsets decoder: "offset key value", "offset key <tombstone>".
func logLines(t *testing.T, h *harness) []string {
	t.Helper()
	l, _ := h.rm.GetLog(offsetsTopicPartition(0))
	var out []string
	for _, seg := range l.LogSegments() {
		fr := seg.Log()
		buf := make([]byte, fr.SizeInBytes())
		if _, err := fr.ReadInto(buf, 0); err != nil {
			t.Fatal(err)
		}
		for e, err := range record.NewMemoryRecords(buf).DeepEntries() {
			if err != nil {
				t.Fatal(err)
			}
			r := e.Record
			var value []byte
			if !r.HasNullValue() {
				value = r.Value()
			}
			k, v, ok, err := FormatOffsetsMessage(r.Key(), value)
			if err != nil {
				t.Fatalf("offset %d: %v", e.Offset, err)
			}
			if !ok {
				key, _ := ReadMessageKey(r.Key())
				out = append(out, fmt.Sprintf("%d %v <tombstone>", e.Offset, key))
				continue
			}
			out = append(out, fmt.Sprintf("%d %s %s", e.Offset, k, v))
		}
	}
	return out
}

func TestSegmentDecodesWithOffsetsDecoder(t *testing.T) {
	h := newHarness(t)
	r := h.join(testGroup, "", rangeProto).get(t)
	m := r.MemberID
	a := (&protocol.ConsumerProtocolAssignment{Partitions: []common.TopicPartition{tp("t", 0), tp("t", 1)}, UserData: []byte{}}).AppendTo(nil)
	if s := h.sync(testGroup, 1, m, map[string][]byte{m: a}).get(t); s.code != 0 {
		t.Fatal(codeName(s.code))
	}
	if c := h.commit(testGroup, m, 1, map[common.TopicPartition]int64{tp("t", 0): 7}); c[tp("t", 0)] != 0 {
		t.Fatal(c)
	}
	h.leave(testGroup, m)
	h.mgr.CleanupGroupMetadata([]common.TopicPartition{tp("t", 0)}) // tombstone for t-0; group Empty → Dead
	got := strings.Join(logLines(t, h), "\n")
	want := strings.Join([]string{
		"0 metadata::g consumer:range:1:{" + m + "=[t-0, t-1]}",
		"1 offset::g:t:0 7",
		"2 metadata::g :null:2:{}",
		"3 [g,t,0] <tombstone>",
		"4 g <tombstone>",
	}, "\n")
	if got != want {
		t.Fatalf("decoded segment:\n%s\nwant\n%s", got, want)
	}
}

func TestLoadAndUnloadPartition(t *testing.T) {
	h := newHarness(t)
	m := h.joinAndSync(testGroup)
	h.commit(testGroup, m, 1, map[common.TopicPartition]int64{tp("t", 0): 7, tp("t", 1): 8})
	h.commit(testGroup, m, 1, map[common.TopicPartition]int64{tp("t", 0): 9}) // last one wins
	h.commitCode("simple", "", -1)                                            // offsets without group metadata
	h.commitCode("gone", "", -1)
	// Offsets of "gone" are tombstoned in the log (as expiry would).
	h.rm.AppendRecords(1000, 1, true, map[common.TopicPartition]*record.MemoryRecords{
		offsetsTopicPartition(0): h.mgr.buildRecords(1, [][2][]byte{{OffsetCommitKey("gone", tp("t", 0)), nil}})}, func(map[common.TopicPartition]error) {})

	before := snapshot(h)
	h.c.HandleGroupEmigration(0)
	if h.mgr.IsPartitionOwned(0) || len(h.mgr.CurrentGroups()) != 0 {
		t.Fatal("emigration left groups behind")
	}
	if code, _ := h.c.HandleFetchOffsets(testGroup, nil); code != 16 {
		t.Fatalf("fetch after unload: %d", code)
	}

	h.c.HandleGroupImmigration(0)
	if !h.mgr.IsPartitionOwned(0) || h.mgr.IsPartitionLoading(0) {
		t.Fatal("partition not owned after load")
	}
	after := snapshot(h)
	// The loaded cache equals what was unloaded, except "gone" (tombstoned) and the state of
	// "gone" in the first snapshot.
	delete(before, "gone")
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Fatalf("cache differs after reload\nbefore %v\nafter  %v", before, after)
	}
	// The loaded member's session is running: a heartbeat works, and silence expires it.
	if c := h.heartbeat(testGroup, m, 1); c != 0 {
		t.Fatalf("heartbeat after load: %s", codeName(c))
	}
	h.advance(testSession + 1)
	if h.state(testGroup) != "Empty" {
		t.Fatalf("state %s after the loaded member's session expired", h.state(testGroup))
	}
}

func TestUnloadAnswersParkedRequests(t *testing.T) {
	h := newHarness(t)
	m := h.joinAndSync(testGroup)
	jf := h.join(testGroup, "", rangeProto) // parked: PreparingRebalance
	h.c.HandleGroupEmigration(0)
	if r := jf.get(t); r.ErrorCode != 16 {
		t.Fatalf("parked join: %s", codeName(r.ErrorCode))
	}
	// The unloaded group leaves no timers behind for the reloaded one to trip over.
	if n := h.c.heartbeatPurgatory.Watched() + h.c.joinPurgatory.Watched(); n != 0 {
		t.Fatalf("%d operations still watched after unload", n)
	}
	h.c.HandleGroupImmigration(0)
	r := h.join(testGroup, m, rangeProto) // the member rejoins the reloaded (Stable, gen 1) group
	if pendingOr(t, r) != 0 {
		t.Fatalf("rejoin after reload: %s", codeName(pendingOr(t, r)))
	}
}

// snapshot renders the cached groups: state, generation, leader, protocol, members, offsets.
func snapshot(h *harness) map[string]string {
	out := map[string]string{}
	for _, g := range h.mgr.CurrentGroups() {
		g.mu.Lock()
		var offs []string
		for tp, o := range g.offsets {
			offs = append(offs, fmt.Sprintf("%s=%d/%d/%d", tp, o.Offset, o.CommitTimestamp, o.ExpireTimestamp))
		}
		sort.Strings(offs)
		out[g.GroupID] = fmt.Sprintf("%s gen=%d leader=%s proto=%s type=%s members=%v offsets=%v",
			g.state, g.generationID, g.leaderID, g.protocol, g.ProtocolType(), g.memberOrder, offs)
		g.mu.Unlock()
	}
	return out
}

func TestOffsetExpiryWritesTombstones(t *testing.T) {
	h := newHarness(t)
	h.c.Shutdown()
	h.newCoordinator()
	h.mgr.AddPartitionOwnership(0)
	h.mgr.config.OffsetsRetentionCheckIntervalMs = 60000
	h.c.groupManager.EnableMetadataExpiration() // runs once now, then every minute
	now := h.time.Milliseconds()
	commit := func(group string, off int64, expire int64) {
		h.c.HandleCommitOffsets(group, "", -1, map[common.TopicPartition]OffsetAndMetadata{
			tp("t", 0): {Offset: off, CommitTimestamp: now, ExpireTimestamp: now + expire}}, func(map[common.TopicPartition]int16) {})
	}
	commit("short", 1, 30000)
	commit("long", 2, 3600000)
	// A group that went through a rebalance (generation 2, Empty) with an expiring offset.
	m := h.joinAndSync("reb")
	h.commit("reb", m, 1, map[common.TopicPartition]int64{tp("t", 1): 3})
	rg := h.mgr.GetGroup("reb")
	rg.mu.Lock()
	o := rg.offsets[tp("t", 1)]
	o.ExpireTimestamp = now + 30000
	rg.offsets[tp("t", 1)] = o
	rg.mu.Unlock()
	h.leave("reb", m)
	l, _ := h.rm.GetLog(offsetsTopicPartition(0))
	endBefore := l.LogEndOffset()

	h.time.Sleep(61000 * 1e6) // one check interval; "short" and "reb"'s offset expired
	h.sched.Tick()

	if h.mgr.GetGroup("short") != nil || h.mgr.GetGroup("reb") != nil {
		t.Fatal("expired Empty groups still cached")
	}
	if _, o := h.c.HandleFetchOffsets("long", nil); o[tp("t", 0)].Offset != 2 {
		t.Fatalf("unexpired offset lost: %v", o)
	}
	lines := logLines(t, h)
	var tail []string
	for _, l := range lines[endBefore:] {
		tail = append(tail, l[strings.Index(l, " ")+1:]) // the groups' order is the cache's: compare as a set
	}
	sort.Strings(tail)
	want := []string{"[reb,t,1] <tombstone>", "[short,t,0] <tombstone>", "reb <tombstone>"}
	if strings.Join(tail, "\n") != strings.Join(want, "\n") {
		t.Fatalf("tombstones:\n%s\nwant\n%s", strings.Join(tail, "\n"), strings.Join(want, "\n"))
	}
	for _, a := range h.rm.acks[len(h.rm.acks)-2:] {
		if a != 1 {
			t.Errorf("tombstones appended with acks %d, want 1 (leader only)", a)
		}
	}
	// Reloading the partition keeps the expired offsets gone.
	h.c.HandleGroupEmigration(0)
	h.c.HandleGroupImmigration(0)
	if h.mgr.GetGroup("short") != nil || h.mgr.GetGroup("reb") != nil || h.mgr.GetGroup("long") == nil {
		t.Fatalf("after reload: %v", snapshot(h))
	}
}

func TestHandleDeletedPartitions(t *testing.T) {
	h := newHarness(t)
	h.commit(testGroup, "", -1, map[common.TopicPartition]int64{tp("a", 0): 1, tp("b", 0): 2})
	h.c.HandleDeletedPartitions([]common.TopicPartition{tp("a", 0)})
	if _, o := h.c.HandleFetchOffsets(testGroup, nil); len(o) != 1 || o[tp("b", 0)].Offset != 2 {
		t.Fatalf("offsets %v", o)
	}
	lines := logLines(t, h)
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, "[g,a,0] <tombstone>") {
		t.Fatalf("last record %q", last)
	}
}

func TestOffsetsTopicCreationSettings(t *testing.T) {
	c := DefaultOffsetConfig()
	if got := c.OffsetsTopicConfigs(); got["cleanup.policy"] != "compact" || got["segment.bytes"] != "104857600" || got["compression.type"] != "producer" {
		t.Errorf("configs %v", got)
	}
	if c.OffsetsTopicReplicationFactorFor(1) != 1 || c.OffsetsTopicReplicationFactorFor(5) != 3 {
		t.Error("replication factor cap")
	}
}

func TestGauges(t *testing.T) {
	h := newHarness(t)
	reg := metrics.NewRegistry(nil)
	h.mgr = NewGroupMetadataManager(GroupMetadataManagerConfig{Config: h.mgr.config, ReplicaManager: h.rm, Time: h.time,
		Scheduler: h.sched, Metrics: reg})
	h.mgr.AddGroup(NewGroupMetadata("a")).offsets[tp("t", 0)] = OffsetAndMetadata{}
	h.mgr.AddGroup(NewGroupMetadata("b"))
	groups, _ := reg.GaugeValue("kafka.coordinator:type=GroupMetadataManager,name=NumGroups")
	offsets, _ := reg.GaugeValue("kafka.coordinator:type=GroupMetadataManager,name=NumOffsets")
	if groups != 2 || offsets != 1 {
		t.Fatalf("NumGroups %v NumOffsets %v", groups, offsets)
	}
}
