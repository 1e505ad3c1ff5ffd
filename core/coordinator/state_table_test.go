package coordinator

import (
	"bytes"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// A group in a given state, built through the coordinator's own API (except Dead, which only
// lives in the cache for the moment between unload and removal, and is forced here).
type stateSetup struct {
	h      *harness
	member string // a current member ("" for Empty: a former member's id)
	other  string // a second member, when the setup has one
	gen    int32
}

func setupState(t *testing.T, s GroupState) *stateSetup {
	h := newHarness(t)
	switch s {
	case Empty:
		m := h.joinAndSync(testGroup)
		if c := h.leave(testGroup, m); c != 0 {
			t.Fatalf("leave: %s", codeName(c))
		}
		return &stateSetup{h: h, member: m, gen: h.generation(testGroup)}
	case PreparingRebalance:
		m := h.joinAndSync(testGroup)
		f := h.join(testGroup, "", rangeProto)
		if f.done() {
			t.Fatal("second join answered before the first member rejoined")
		}
		return &stateSetup{h: h, member: m, gen: 1}
	case AwaitingSync:
		r := h.join(testGroup, "", rangeProto).get(t)
		return &stateSetup{h: h, member: r.MemberID, gen: r.GenerationID}
	case Stable:
		return &stateSetup{h: h, member: h.joinAndSync(testGroup), gen: 1}
	case Dead:
		m := h.joinAndSync(testGroup)
		g := h.mgr.GetGroup(testGroup)
		g.mu.Lock()
		g.mustTransitionTo(Dead)
		g.mu.Unlock()
		return &stateSetup{h: h, member: m, gen: 1}
	}
	t.Fatalf("no setup for %s", s)
	return nil
}

// stableTwo is a Stable group of generation 2 with a leader and a follower.
func stableTwo(t *testing.T) *stateSetup {
	h := newHarness(t)
	leader := h.joinAndSync(testGroup)
	jf := h.join(testGroup, "", rangeProto)
	if c := h.heartbeat(testGroup, leader, 1); c != protocol.ErrRebalanceInProgress.Code {
		t.Fatalf("heartbeat during rebalance: %s", codeName(c))
	}
	lr := h.join(testGroup, leader, rangeProto).get(t)
	fr := jf.get(t)
	if lr.GenerationID != 2 || fr.GenerationID != 2 || lr.LeaderID != leader || len(lr.Members) != 2 || len(fr.Members) != 0 {
		t.Fatalf("rebalance results: %+v / %+v", lr, fr)
	}
	fs := h.sync(testGroup, 2, fr.MemberID, nil)
	if fs.done() {
		t.Fatal("follower sync answered before the leader's")
	}
	ls := h.sync(testGroup, 2, leader, map[string][]byte{leader: []byte("L"), fr.MemberID: []byte("F")}).get(t)
	if ls.code != 0 || string(ls.assignment) != "L" || string(fs.get(t).assignment) != "F" {
		t.Fatal("assignments not delivered")
	}
	return &stateSetup{h: h, member: leader, other: fr.MemberID, gen: 2}
}

type cellResult struct {
	code  int16
	state GroupState
}

func checkCell(t *testing.T, s *stateSetup, gotCode int16, want cellResult) {
	t.Helper()
	if gotCode != want.code {
		t.Errorf("code = %s, want %s", codeName(gotCode), codeName(want.code))
	}
	if got := s.h.state(testGroup); got != want.state.String() {
		t.Errorf("state after = %s, want %s", got, want.state)
	}
}

const pending int16 = -100 // the request was parked, not answered

func TestStateTableJoinGroupNewMember(t *testing.T) {
	cases := map[GroupState]cellResult{
		Empty:              {0, AwaitingSync}, // the only member: the rebalance completes at once
		PreparingRebalance: {pending, PreparingRebalance},
		AwaitingSync:       {pending, PreparingRebalance},
		Stable:             {pending, PreparingRebalance},
		Dead:               {protocol.ErrUnknownMemberID.Code, Dead},
	}
	for s, want := range cases {
		t.Run(s.String(), func(t *testing.T) {
			st := setupState(t, s)
			f := st.h.join(testGroup, "", rangeProto)
			code := pending
			if f.done() {
				code = f.get(t).ErrorCode
			}
			checkCell(t, st, code, want)
		})
	}
}

func TestStateTableJoinGroupKnownMember(t *testing.T) {
	t.Run("Empty", func(t *testing.T) {
		st := setupState(t, Empty)
		checkCell(t, st, st.h.join(testGroup, st.member, rangeProto).get(t).ErrorCode, cellResult{protocol.ErrUnknownMemberID.Code, Empty})
	})
	t.Run("PreparingRebalance/rejoin completes the rebalance", func(t *testing.T) {
		st := setupState(t, PreparingRebalance)
		r := st.h.join(testGroup, st.member, rangeProto).get(t)
		checkCell(t, st, r.ErrorCode, cellResult{0, AwaitingSync})
		if r.GenerationID != 2 || len(r.Members) != 2 {
			t.Errorf("leader's answer: %+v", r)
		}
	})
	t.Run("AwaitingSync/unchanged answers at once", func(t *testing.T) {
		st := setupState(t, AwaitingSync)
		r := st.h.join(testGroup, st.member, rangeProto).get(t)
		checkCell(t, st, r.ErrorCode, cellResult{0, AwaitingSync})
		if r.GenerationID != st.gen || r.LeaderID != st.member || len(r.Members) != 1 {
			t.Errorf("answer: %+v", r)
		}
	})
	t.Run("AwaitingSync/changed rebalances", func(t *testing.T) {
		st := setupState(t, AwaitingSync)
		changed := []Protocol{{Name: "range", Metadata: []byte("other")}}
		r := st.h.join(testGroup, st.member, changed).get(t) // sole member: completes at once
		checkCell(t, st, r.ErrorCode, cellResult{0, AwaitingSync})
		if r.GenerationID != st.gen+1 {
			t.Errorf("generation %d, want %d", r.GenerationID, st.gen+1)
		}
	})
	t.Run("Stable/leader unchanged rebalances", func(t *testing.T) {
		st := stableTwo(t)
		f := st.h.join(testGroup, st.member, rangeProto)
		checkCell(t, st, pendingOr(t, f), cellResult{pending, PreparingRebalance})
	})
	t.Run("Stable/follower unchanged answers at once", func(t *testing.T) {
		st := stableTwo(t)
		r := st.h.join(testGroup, st.other, rangeProto).get(t)
		checkCell(t, st, r.ErrorCode, cellResult{0, Stable})
		if r.GenerationID != 2 || r.LeaderID != st.member || len(r.Members) != 0 {
			t.Errorf("answer: %+v", r)
		}
	})
	t.Run("Stable/follower changed rebalances", func(t *testing.T) {
		st := stableTwo(t)
		f := st.h.join(testGroup, st.other, []Protocol{{Name: "range", Metadata: []byte("x")}})
		checkCell(t, st, pendingOr(t, f), cellResult{pending, PreparingRebalance})
	})
	t.Run("Dead", func(t *testing.T) {
		st := setupState(t, Dead)
		checkCell(t, st, st.h.join(testGroup, st.member, rangeProto).get(t).ErrorCode, cellResult{protocol.ErrUnknownMemberID.Code, Dead})
	})
}

func pendingOr(t *testing.T, f *joinFuture) int16 {
	if f.done() {
		return f.get(t).ErrorCode
	}
	return pending
}

func TestStateTableJoinGroupProtocolChecks(t *testing.T) {
	st := setupState(t, Stable)
	h := st.h
	var code int16
	h.c.HandleJoinGroup(testGroup, "", "c", "/h", testRebalance, testSession, "connect", rangeProto, func(r JoinGroupResult) { code = r.ErrorCode })
	checkCell(t, st, code, cellResult{protocol.ErrInconsistentGroupProtocol.Code, Stable})
	code = h.join(testGroup, "", []Protocol{{Name: "roundrobin"}}).get(t).ErrorCode
	checkCell(t, st, code, cellResult{protocol.ErrInconsistentGroupProtocol.Code, Stable})
	code = h.join(testGroup, "", nil).get(t).ErrorCode
	checkCell(t, st, code, cellResult{protocol.ErrInconsistentGroupProtocol.Code, Stable})
	code = h.join("fresh", "", nil).get(t).ErrorCode // even into a new (Empty) group
	if code != protocol.ErrInconsistentGroupProtocol.Code || h.state("fresh") != "Empty" {
		t.Errorf("no protocols into an empty group: %s, state %s", codeName(code), h.state("fresh"))
	}
	code = h.join(testGroup, "nobody", rangeProto).get(t).ErrorCode
	checkCell(t, st, code, cellResult{protocol.ErrUnknownMemberID.Code, Stable})
}

func TestStateTableSyncGroup(t *testing.T) {
	cases := map[GroupState]cellResult{
		Empty:              {protocol.ErrUnknownMemberID.Code, Empty}, // no members left
		PreparingRebalance: {protocol.ErrRebalanceInProgress.Code, PreparingRebalance},
		AwaitingSync:       {0, Stable}, // the leader's assignment is persisted
		Stable:             {0, Stable},
		Dead:               {protocol.ErrUnknownMemberID.Code, Dead},
	}
	for s, want := range cases {
		t.Run(s.String(), func(t *testing.T) {
			st := setupState(t, s)
			r := st.h.sync(testGroup, st.gen, st.member, map[string][]byte{st.member: []byte("x")}).get(t)
			checkCell(t, st, r.code, want)
		})
		if s == Empty || s == Dead {
			continue
		}
		t.Run(s.String()+"/wrong generation", func(t *testing.T) {
			st := setupState(t, s)
			r := st.h.sync(testGroup, st.gen+5, st.member, nil).get(t)
			checkCell(t, st, r.code, cellResult{protocol.ErrIllegalGeneration.Code, s})
		})
		t.Run(s.String()+"/not a member", func(t *testing.T) {
			st := setupState(t, s)
			r := st.h.sync(testGroup, st.gen, "nobody", nil).get(t)
			checkCell(t, st, r.code, cellResult{protocol.ErrUnknownMemberID.Code, s})
		})
	}
	t.Run("Stable returns the current assignment", func(t *testing.T) {
		st := stableTwo(t)
		r := st.h.sync(testGroup, 2, st.other, nil).get(t)
		if r.code != 0 || string(r.assignment) != "F" {
			t.Errorf("got %+v", r)
		}
	})
}

func TestStateTableHeartbeat(t *testing.T) {
	type row struct {
		name   string
		member func(*stateSetup) string
		gen    func(*stateSetup) int32
		want   map[GroupState]int16
	}
	self := func(s *stateSetup) string { return s.member }
	nobody := func(*stateSetup) string { return "nobody" }
	right := func(s *stateSetup) int32 { return s.gen }
	wrong := func(s *stateSetup) int32 { return s.gen + 7 }
	rows := []row{
		{"member", self, right, map[GroupState]int16{Empty: 25, PreparingRebalance: 27, AwaitingSync: 27, Stable: 0, Dead: 25}},
		{"wrong generation", self, wrong, map[GroupState]int16{Empty: 25, PreparingRebalance: 22, AwaitingSync: 27, Stable: 22, Dead: 25}},
		{"not a member", nobody, right, map[GroupState]int16{Empty: 25, PreparingRebalance: 25, AwaitingSync: 25, Stable: 25, Dead: 25}},
	}
	for _, r := range rows {
		for s, want := range r.want {
			t.Run(r.name+"/"+s.String(), func(t *testing.T) {
				st := setupState(t, s)
				checkCell(t, st, st.h.heartbeat(testGroup, r.member(st), r.gen(st)), cellResult{want, s})
			})
		}
	}
}

func TestStateTableLeaveGroup(t *testing.T) {
	cases := map[GroupState]cellResult{
		Empty:              {protocol.ErrUnknownMemberID.Code, Empty},
		PreparingRebalance: {0, AwaitingSync}, // the only member not rejoined left: the join completes
		AwaitingSync:       {0, Empty},        // → PreparingRebalance, which completes with no member
		Stable:             {0, Empty},
		Dead:               {protocol.ErrUnknownMemberID.Code, Dead},
	}
	for s, want := range cases {
		t.Run(s.String(), func(t *testing.T) {
			st := setupState(t, s)
			checkCell(t, st, st.h.leave(testGroup, st.member), want)
		})
		t.Run(s.String()+"/not a member", func(t *testing.T) {
			st := setupState(t, s)
			checkCell(t, st, st.h.leave(testGroup, "nobody"), cellResult{protocol.ErrUnknownMemberID.Code, s})
		})
	}
	t.Run("Stable with two members rebalances", func(t *testing.T) {
		st := stableTwo(t)
		checkCell(t, st, st.h.leave(testGroup, st.other), cellResult{0, PreparingRebalance})
	})
}

func TestStateTableOffsetCommit(t *testing.T) {
	type row struct {
		name   string
		member func(*stateSetup) string
		gen    func(*stateSetup) int32
		want   map[GroupState]int16
	}
	self := func(s *stateSetup) string { return s.member }
	simple := func(*stateSetup) string { return "" }
	nobody := func(*stateSetup) string { return "nobody" }
	right := func(s *stateSetup) int32 { return s.gen }
	wrong := func(s *stateSetup) int32 { return s.gen + 7 }
	minus1 := func(*stateSetup) int32 { return -1 }
	rows := []row{
		{"simple consumer", simple, minus1, map[GroupState]int16{Empty: 0, PreparingRebalance: 25, AwaitingSync: 27, Stable: 25, Dead: 25}},
		{"member", self, right, map[GroupState]int16{Empty: 25, PreparingRebalance: 0, AwaitingSync: 27, Stable: 0, Dead: 25}},
		{"wrong generation", self, wrong, map[GroupState]int16{Empty: 25, PreparingRebalance: 22, AwaitingSync: 27, Stable: 22, Dead: 25}},
		{"not a member", nobody, right, map[GroupState]int16{Empty: 25, PreparingRebalance: 25, AwaitingSync: 27, Stable: 25, Dead: 25}},
	}
	for _, r := range rows {
		for s, want := range r.want {
			t.Run(r.name+"/"+s.String(), func(t *testing.T) {
				st := setupState(t, s)
				checkCell(t, st, st.h.commitCode(testGroup, r.member(st), r.gen(st)), cellResult{want, s})
				code, got := st.h.c.HandleFetchOffsets(testGroup, []common.TopicPartition{tp("t", 0)})
				wantOffset := InvalidOffset
				if want == 0 {
					wantOffset = 5
				}
				if code != 0 || got[tp("t", 0)].Offset != wantOffset {
					t.Errorf("fetch after commit: %d %+v, want offset %d", code, got, wantOffset)
				}
			})
		}
	}
	t.Run("unknown group, generation >= 0", func(t *testing.T) {
		h := newHarness(t)
		if c := h.commitCode("other", "m", 3); c != protocol.ErrIllegalGeneration.Code {
			t.Errorf("code %s", codeName(c))
		}
		if h.state("other") != "<none>" {
			t.Error("group created")
		}
	})
	t.Run("unknown group, generation -1 creates an Empty group", func(t *testing.T) {
		h := newHarness(t)
		if c := h.commitCode("other", "", -1); c != 0 {
			t.Errorf("code %s", codeName(c))
		}
		if h.state("other") != "Empty" {
			t.Errorf("state %s", h.state("other"))
		}
	})
}

func TestStateTableOffsetFetchAndDescribe(t *testing.T) {
	for _, s := range []GroupState{Empty, PreparingRebalance, AwaitingSync, Stable, Dead} {
		t.Run(s.String(), func(t *testing.T) {
			st := setupState(t, s)
			g := st.h.mgr.GetGroup(testGroup)
			g.mu.Lock()
			g.offsets[tp("t", 1)] = OffsetAndMetadata{Offset: 9, Metadata: "m"}
			g.mu.Unlock()
			code, got := st.h.c.HandleFetchOffsets(testGroup, []common.TopicPartition{tp("t", 1), tp("t", 2)})
			want := int64(9)
			if s == Dead {
				want = InvalidOffset
			}
			if code != 0 || got[tp("t", 1)].Offset != want || got[tp("t", 2)].Offset != InvalidOffset {
				t.Errorf("fetch: %d %+v", code, got)
			}
			code, sum := st.h.c.HandleDescribeGroup(testGroup)
			if code != 0 || sum.State != s.String() {
				t.Errorf("describe: %d %+v", code, sum)
			}
			switch s {
			case Stable:
				if sum.Protocol != "range" || sum.ProtocolType != "consumer" || len(sum.Members) != 1 ||
					len(sum.Members[0].Metadata) == 0 || !bytes.Equal(sum.Members[0].Assignment, testAssignment) {
					t.Errorf("stable summary %+v", sum)
				}
			case PreparingRebalance, AwaitingSync:
				if sum.Protocol != "" || len(sum.Members) == 0 || len(sum.Members[0].Metadata) != 0 {
					t.Errorf("summary %+v", sum)
				}
			case Empty:
				if len(sum.Members) != 0 || sum.Protocol != "" {
					t.Errorf("summary %+v", sum)
				}
			}
		})
	}
	t.Run("unknown group", func(t *testing.T) {
		h := newHarness(t)
		code, sum := h.c.HandleDescribeGroup("nope")
		if code != 0 || sum.State != "Dead" {
			t.Errorf("describe: %d %+v", code, sum)
		}
		code, got := h.c.HandleFetchOffsets("nope", []common.TopicPartition{tp("t", 0)})
		if code != 0 || got[tp("t", 0)].Offset != -1 {
			t.Errorf("fetch: %d %+v", code, got)
		}
	})
}

// TestPrechecks covers the "common prechecks" table: not active, bad group id, not owner,
// loading, session timeout, unknown group.
func TestPrechecks(t *testing.T) {
	type answers struct{ join, sync, hb, leave, commit, fetch, describe int16 }
	run := func(h *harness, group string, session int32) answers {
		var a answers
		a.join, a.sync, a.hb, a.leave, a.commit = pending, pending, pending, pending, pending
		h.c.HandleJoinGroup(group, "", "c", "/h", testRebalance, session, "consumer", rangeProto, func(r JoinGroupResult) { a.join = r.ErrorCode })
		h.c.HandleSyncGroup(group, 1, "m", nil, func(_ []byte, c int16) { a.sync = c })
		h.c.HandleHeartbeat(group, "m", 1, func(c int16) { a.hb = c })
		h.c.HandleLeaveGroup(group, "m", func(c int16) { a.leave = c })
		a.commit = h.commitCode(group, "m", 1)
		a.fetch, _ = h.c.HandleFetchOffsets(group, nil)
		a.describe, _ = h.c.HandleDescribeGroup(group)
		return a
	}
	t.Run("not active", func(t *testing.T) {
		h := newHarness(t)
		h.c.isActive.Store(false)
		want := answers{15, 15, 15, 15, 15, 15, 15}
		if got := run(h, testGroup, testSession); got != want {
			t.Errorf("got %+v want %+v", got, want)
		}
		if code, _ := h.c.HandleListGroups(); code != 15 {
			t.Errorf("list: %d", code)
		}
	})
	t.Run("not owner", func(t *testing.T) {
		h := newHarness(t)
		delete(h.mgr.ownedPartitions, 0)
		want := answers{16, 16, 16, 16, 16, 16, 16}
		if got := run(h, testGroup, testSession); got != want {
			t.Errorf("got %+v want %+v", got, want)
		}
	})
	t.Run("loading", func(t *testing.T) {
		h := newHarness(t)
		h.mgr.loadingPartitions[0] = true
		// SyncGroup does not check loading (unknown group → 25); Heartbeat answers NONE.
		want := answers{14, 25, 0, 14, 14, 14, 14}
		if got := run(h, testGroup, testSession); got != want {
			t.Errorf("got %+v want %+v", got, want)
		}
		if code, _ := h.c.HandleListGroups(); code != 14 {
			t.Errorf("list: %d", code)
		}
	})
	t.Run("unknown group", func(t *testing.T) {
		h := newHarness(t)
		var join, sync, hb, leave int16 = pending, pending, pending, pending
		h.c.HandleJoinGroup("unknown", "m", "c", "/h", testRebalance, testSession, "consumer", rangeProto, func(r JoinGroupResult) { join = r.ErrorCode })
		h.c.HandleSyncGroup("unknown", 1, "m", nil, func(_ []byte, c int16) { sync = c })
		h.c.HandleHeartbeat("unknown", "m", 1, func(c int16) { hb = c })
		h.c.HandleLeaveGroup("unknown", "m", func(c int16) { leave = c })
		commit := h.commitCode("unknown", "m", 1)
		if join != 25 || sync != 25 || hb != 25 || leave != 25 || commit != 22 || h.state("unknown") != "<none>" {
			t.Errorf("join %d sync %d hb %d leave %d commit %d state %s", join, sync, hb, leave, commit, h.state("unknown"))
		}
	})
	t.Run("group id and session timeout", func(t *testing.T) {
		h := newHarness(t)
		if got := run(h, "", testSession); got.join != 24 {
			t.Errorf("empty group id: %d", got.join)
		}
		if got := run(h, testGroup, 5999); got.join != 26 {
			t.Errorf("session 5999: %d", got.join)
		}
		if got := run(h, testGroup, 300001); got.join != 26 {
			t.Errorf("session 300001: %d", got.join)
		}
	})
}

func TestTransitions(t *testing.T) {
	all := []GroupState{Empty, PreparingRebalance, AwaitingSync, Stable, Dead}
	legal := map[[2]GroupState]bool{}
	for _, to := range all {
		for _, from := range ValidPreviousStates(to) {
			legal[[2]GroupState{from, to}] = true
		}
	}
	want := map[[2]GroupState]bool{
		{Empty, PreparingRebalance}: true, {Stable, PreparingRebalance}: true, {AwaitingSync, PreparingRebalance}: true,
		{PreparingRebalance, AwaitingSync}: true, {AwaitingSync, Stable}: true, {PreparingRebalance, Empty}: true,
		{Empty, Dead}: true, {PreparingRebalance, Dead}: true, {AwaitingSync, Dead}: true, {Stable, Dead}: true, {Dead, Dead}: true,
	}
	for _, from := range all {
		for _, to := range all {
			g := NewGroupMetadata("x")
			g.state = from
			err := g.TransitionTo(to)
			ok := want[[2]GroupState{from, to}]
			if (err == nil) != ok || legal[[2]GroupState{from, to}] != ok {
				t.Errorf("%s → %s: err=%v, want legal=%v", from, to, err, ok)
			}
			if err != nil && g.state != from {
				t.Errorf("%s → %s refused but state changed to %s", from, to, g.state)
			}
		}
	}
}
