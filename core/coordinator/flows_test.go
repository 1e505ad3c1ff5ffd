package coordinator

import (
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// member is one simulated consumer in a flow test.
type member struct {
	id  string
	gen int32
}

// rebalanceAll has every listed member (re)join, the leader assign, everyone sync; it returns
// the new generation. pendingJoins are JoinGroups already parked (new members).
func rebalanceAll(t *testing.T, h *harness, ms []*member, pendingJoins []*joinFuture) int32 {
	t.Helper()
	futs := append([]*joinFuture(nil), pendingJoins...)
	for _, m := range ms {
		futs = append(futs, h.join(testGroup, m.id, rangeProto))
	}
	results := make([]JoinGroupResult, len(futs))
	leader := -1
	for i, f := range futs {
		results[i] = f.get(t)
		if results[i].ErrorCode != 0 {
			t.Fatalf("join %d: %s", i, codeName(results[i].ErrorCode))
		}
		if results[i].LeaderID == results[i].MemberID {
			leader = i
		}
	}
	if leader < 0 {
		t.Fatal("no leader among the answers")
	}
	gen := results[0].GenerationID
	assignment := map[string][]byte{}
	for _, r := range results {
		if r.GenerationID != gen {
			t.Fatalf("generations differ: %+v", results)
		}
		assignment[r.MemberID] = []byte("for-" + r.MemberID)
	}
	if len(results[leader].Members) != len(results) {
		t.Fatalf("leader saw %d members, want %d", len(results[leader].Members), len(results))
	}
	var syncs []*syncFuture
	for i, r := range results {
		if i != leader {
			syncs = append(syncs, h.sync(testGroup, gen, r.MemberID, nil))
		}
	}
	ls := h.sync(testGroup, gen, results[leader].MemberID, assignment).get(t)
	if ls.code != 0 {
		t.Fatalf("leader sync: %s", codeName(ls.code))
	}
	for i, s := range syncs {
		if r := s.get(t); r.code != 0 || len(r.assignment) == 0 {
			t.Fatalf("follower sync %d: %+v", i, r)
		}
	}
	if h.state(testGroup) != "Stable" {
		t.Fatalf("state %s", h.state(testGroup))
	}
	return gen
}

func threeMembers(t *testing.T, h *harness) []*member {
	first := h.joinAndSync(testGroup)
	ms := []*member{{id: first}}
	j2, j3 := h.join(testGroup, "", rangeProto), h.join(testGroup, "", rangeProto)
	gen := rebalanceAll(t, h, ms, []*joinFuture{j2, j3})
	if gen != 2 {
		t.Fatalf("generation %d", gen)
	}
	g := h.mgr.GetGroup(testGroup)
	g.mu.Lock()
	ids := g.AllMembers()
	g.mu.Unlock()
	ms = ms[:0]
	for _, id := range ids {
		ms = append(ms, &member{id: id, gen: gen})
	}
	if len(ms) != 3 {
		t.Fatalf("%d members", len(ms))
	}
	return ms
}

func TestThreeMembersJoinSyncAndLeave(t *testing.T) {
	h := newHarness(t)
	ms := threeMembers(t, h)
	for _, m := range ms {
		if c := h.heartbeat(testGroup, m.id, m.gen); c != 0 {
			t.Fatalf("heartbeat: %s", codeName(c))
		}
	}
	// The third member leaves: the others learn of the rebalance from their heartbeats.
	if c := h.leave(testGroup, ms[2].id); c != 0 {
		t.Fatal(codeName(c))
	}
	if h.state(testGroup) != "PreparingRebalance" {
		t.Fatalf("state %s", h.state(testGroup))
	}
	for _, m := range ms[:2] {
		if c := h.heartbeat(testGroup, m.id, m.gen); c != protocol.ErrRebalanceInProgress.Code {
			t.Fatalf("heartbeat: %s", codeName(c))
		}
	}
	if c := h.heartbeat(testGroup, ms[2].id, ms[2].gen); c != protocol.ErrUnknownMemberID.Code {
		t.Fatalf("heartbeat of the leaver: %s", codeName(c))
	}
	gen := rebalanceAll(t, h, ms[:2], nil)
	if gen != 3 {
		t.Fatalf("generation %d", gen)
	}
	// The group's metadata was written at every sync: the log holds 3 group records.
	l, _ := h.rm.GetLog(offsetsTopicPartition(0))
	if l.LogEndOffset() != 3 {
		t.Fatalf("log end offset %d, want 3 group metadata records", l.LogEndOffset())
	}
}

func TestRebalanceOnSessionTimeout(t *testing.T) {
	h := newHarness(t)
	ms := threeMembers(t, h)
	// Members 0 and 1 heartbeat every 3 s; member 2 goes silent.
	for i := 0; i < 3; i++ {
		h.advance(3000)
		for _, m := range ms[:2] {
			if c := h.heartbeat(testGroup, m.id, m.gen); c != 0 {
				t.Fatalf("heartbeat at %d: %s", i, codeName(c))
			}
		}
	}
	if h.state(testGroup) != "Stable" {
		t.Fatalf("state %s after 9 s", h.state(testGroup))
	}
	h.advance(1001) // 10.001 s since member 2's last sign of life
	if h.state(testGroup) != "PreparingRebalance" {
		t.Fatalf("state %s after member 2's session ran out", h.state(testGroup))
	}
	g := h.mgr.GetGroup(testGroup)
	g.mu.Lock()
	gone := !g.Has(ms[2].id)
	g.mu.Unlock()
	if !gone {
		t.Fatal("expired member still in the group")
	}
	for _, m := range ms[:2] {
		if c := h.heartbeat(testGroup, m.id, m.gen); c != protocol.ErrRebalanceInProgress.Code {
			t.Fatalf("heartbeat: %s", codeName(c))
		}
	}
	if gen := rebalanceAll(t, h, ms[:2], nil); gen != 3 {
		t.Fatalf("generation %d", gen)
	}
}

func TestRebalanceTimeoutDropsMembersThatDoNotRejoin(t *testing.T) {
	h := newHarness(t)
	ms := threeMembers(t, h)
	// Member 0 rejoins (the leader forcing a rebalance); the others keep heartbeating but never
	// rejoin: at the rebalance timeout they are dropped and member 0 gets generation 3 alone.
	f := h.join(testGroup, ms[0].id, rangeProto)
	for elapsed := int64(0); elapsed < testRebalance-3000; elapsed += 3000 {
		h.advance(3000)
		for _, m := range ms[1:] {
			if c := h.heartbeat(testGroup, m.id, m.gen); c != protocol.ErrRebalanceInProgress.Code {
				t.Fatalf("heartbeat: %s", codeName(c))
			}
		}
	}
	if f.done() {
		t.Fatal("join completed before the rebalance timeout")
	}
	h.advance(3001)
	r := f.get(t)
	if r.ErrorCode != 0 || r.GenerationID != 3 || len(r.Members) != 1 {
		t.Fatalf("join after timeout: %+v", r)
	}
	if c := h.heartbeat(testGroup, ms[1].id, ms[1].gen); c != protocol.ErrUnknownMemberID.Code {
		t.Fatalf("dropped member's heartbeat: %s", codeName(c))
	}
}

func TestFollowerSyncParkedUntilLeaderAndNewJoinCancelsIt(t *testing.T) {
	h := newHarness(t)
	leader := h.joinAndSync(testGroup)
	jf := h.join(testGroup, "", rangeProto)
	h.join(testGroup, leader, rangeProto).get(t)
	fr := jf.get(t)
	fs := h.sync(testGroup, fr.GenerationID, fr.MemberID, nil)
	if fs.done() {
		t.Fatal("follower sync answered early")
	}
	// A third member joins while the group awaits the leader's sync: parked syncs get 27.
	h.join(testGroup, "", rangeProto)
	if r := fs.get(t); r.code != protocol.ErrRebalanceInProgress.Code || len(r.assignment) != 0 {
		t.Fatalf("parked sync: %+v", r)
	}
	if h.state(testGroup) != "PreparingRebalance" {
		t.Fatalf("state %s", h.state(testGroup))
	}
}

func TestSyncGroupStoreFailure(t *testing.T) {
	cases := []struct {
		appendErr error
		want      int16
	}{
		{protocol.ErrNotEnoughReplicas, protocol.ErrGroupCoordinatorNotAvailable.Code},
		{protocol.ErrNotLeaderForPartition, protocol.ErrNotCoordinatorForGroup.Code},
		{protocol.ErrRequestTimedOut, protocol.ErrRebalanceInProgress.Code},
		{protocol.ErrMessageTooLarge, protocol.ErrUnknown.Code},
		{protocol.ErrCorruptMessage, protocol.ErrCorruptMessage.Code},
	}
	for _, c := range cases {
		t.Run(c.appendErr.Error(), func(t *testing.T) {
			h := newHarness(t)
			r := h.join(testGroup, "", rangeProto).get(t)
			h.rm.err = c.appendErr
			s := h.sync(testGroup, r.GenerationID, r.MemberID, map[string][]byte{r.MemberID: []byte("a")}).get(t)
			if s.code != c.want || len(s.assignment) != 0 {
				t.Errorf("sync: %+v, want %s", s, codeName(c.want))
			}
			// The failure forces a new rebalance, which waits for the member to rejoin.
			if h.state(testGroup) != "PreparingRebalance" {
				t.Errorf("state %s", h.state(testGroup))
			}
		})
	}
}

func TestOffsetCommitWaitsForTheAppend(t *testing.T) {
	h := newHarness(t)
	h.rm.hold = true
	var got map[common.TopicPartition]int16
	now := h.time.Milliseconds()
	h.c.HandleCommitOffsets(testGroup, "", -1, map[common.TopicPartition]OffsetAndMetadata{
		tp("t", 0): {Offset: 10, CommitTimestamp: now, ExpireTimestamp: now + 1000},
		tp("t", 1): {Offset: 11, Metadata: string(make([]byte, 4097)), CommitTimestamp: now, ExpireTimestamp: now + 1000},
	}, func(m map[common.TopicPartition]int16) { got = m })
	if got != nil {
		t.Fatal("commit answered before the append completed")
	}
	if _, o := h.c.HandleFetchOffsets(testGroup, []common.TopicPartition{tp("t", 0)}); o[tp("t", 0)].Offset != -1 {
		t.Fatal("offset visible before the append completed")
	}
	if h.rm.acks[0] != -1 {
		t.Errorf("acks %d, want -1", h.rm.acks[0])
	}
	h.rm.release()
	if got[tp("t", 0)] != 0 || got[tp("t", 1)] != protocol.ErrOffsetMetadataTooLarge.Code {
		t.Fatalf("commit result %v", got)
	}
	if _, o := h.c.HandleFetchOffsets(testGroup, []common.TopicPartition{tp("t", 0), tp("t", 1)}); o[tp("t", 0)].Offset != 10 || o[tp("t", 1)].Offset != -1 {
		t.Fatalf("fetch %v", o)
	}
	l, _ := h.rm.GetLog(offsetsTopicPartition(0))
	if l.LogEndOffset() != 1 {
		t.Fatalf("%d records written, want 1 (the oversized metadata is not written)", l.LogEndOffset())
	}
}

func TestOffsetCommitAppendErrors(t *testing.T) {
	cases := map[error]int16{
		protocol.ErrUnknownTopicOrPartition: protocol.ErrGroupCoordinatorNotAvailable.Code,
		protocol.ErrNotLeaderForPartition:   protocol.ErrNotCoordinatorForGroup.Code,
		protocol.ErrRecordListTooLarge:      protocol.ErrInvalidCommitOffsetSize.Code,
		protocol.ErrRequestTimedOut:         protocol.ErrRequestTimedOut.Code,
	}
	for appendErr, want := range cases {
		h := newHarness(t)
		h.rm.err = appendErr
		if c := h.commitCode(testGroup, "", -1); c != want {
			t.Errorf("%v: %s, want %s", appendErr, codeName(c), codeName(want))
		}
		if _, o := h.c.HandleFetchOffsets(testGroup, nil); len(o) != 0 {
			t.Errorf("%v: failed commit visible: %v", appendErr, o)
		}
	}
	// No local replica of the partition: NOT_COORDINATOR_FOR_GROUP without an append.
	h := newHarness(t)
	h.rm.removePartition(0)
	if c := h.commitCode(testGroup, "", -1); c != protocol.ErrNotCoordinatorForGroup.Code {
		t.Errorf("no replica: %s", codeName(c))
	}
}

func TestOffsetsForCommit(t *testing.T) {
	h := newHarness(t)
	now := h.time.Milliseconds()
	md := "meta"
	req := &protocol.OffsetCommitRequest{Version: 1, GroupID: testGroup, Topics: []protocol.OffsetCommitRequestTopic{{Topic: "t",
		Partitions: []protocol.OffsetCommitRequestTopicPartition{{Partition: 0, Offset: 5, Timestamp: -1}, {Partition: 1, Offset: 6, Timestamp: 500, Metadata: &md}}}}}
	got := h.c.OffsetsForCommit(req)
	ret := h.c.offsetConfig.OffsetsRetentionMs
	if got[tp("t", 0)] != (OffsetAndMetadata{5, "", now, now + ret}) || got[tp("t", 1)] != (OffsetAndMetadata{6, "meta", now, 500 + ret}) {
		t.Errorf("v1: %+v", got)
	}
	req.Version, req.RetentionTime = 2, 1000
	got = h.c.OffsetsForCommit(req)
	if got[tp("t", 1)] != (OffsetAndMetadata{6, "meta", now, now + 1000}) {
		t.Errorf("v2: %+v", got)
	}
	req.RetentionTime = -1
	if got = h.c.OffsetsForCommit(req); got[tp("t", 0)].ExpireTimestamp != now+ret {
		t.Errorf("v2 default retention: %+v", got)
	}
}

func TestProtocolSelection(t *testing.T) {
	g := NewGroupMetadata("x")
	add := func(id string, names ...string) {
		var ps []Protocol
		for _, n := range names {
			ps = append(ps, Protocol{Name: n})
		}
		g.Add(NewMemberMetadata(id, "x", "c", "h", 1, 1, "consumer", ps))
	}
	add("a", "roundrobin", "range")
	add("b", "range", "roundrobin")
	add("c", "range", "sticky")
	// candidates = {range}; all vote range
	if p, err := g.SelectProtocol(); err != nil || p != "range" {
		t.Fatalf("%q %v", p, err)
	}
	g2 := NewGroupMetadata("y")
	g = g2
	add("a", "roundrobin", "range")
	add("b", "roundrobin", "range")
	add("c", "range", "roundrobin")
	if p, _ := g.SelectProtocol(); p != "roundrobin" {
		t.Fatalf("majority: %q", p)
	}
	if !g.SupportsProtocols([]string{"range"}) || g.SupportsProtocols([]string{"sticky"}) {
		t.Fatal("SupportsProtocols")
	}
	if g.LeaderID() != "a" {
		t.Fatalf("leader %q", g.LeaderID())
	}
	g.Remove("a")
	if g.LeaderID() != "b" {
		t.Fatalf("leader after removal %q", g.LeaderID())
	}
}

func TestMemberIDFormat(t *testing.T) {
	h := newHarness(t)
	r := h.join(testGroup, "", rangeProto).get(t)
	// clientId "-" UUID (36 characters, version 4)
	id := r.MemberID
	if len(id) != len("client-")+36 || id[:7] != "client-" || id[7+14] != '4' || id[7+8] != '-' {
		t.Fatalf("member id %q", id)
	}
}
