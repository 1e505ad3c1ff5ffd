package coordinator

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// TestGroupStateScripts runs the scripts of testdata/group_states (etcd/raft's datadriven
// format): the group coordinator's answer to every request in every group state, and the state
// the group is in afterwards, as Kafka 0.10.2's GroupCoordinator decides them. Each script drives
// the coordinator of the harness (MockTime, MockTimer, one __consumer_offsets partition) through
// events; rewrite the expected outputs with
// `go test ./core/coordinator -run TestGroupStateScripts -rewrite` and review the diff.
//
// Members are named m1, m2... in the order the coordinator first names them; "nobody" is an id it
// does not know and "new" the empty id of a member joining for the first time. A generation is a
// number, "cur" (the group's), or "cur+N". Commands:
//
//	setup state=<Empty|PreparingRebalance|AwaitingSync|Stable|StableTwo|Dead>
//	    a fresh coordinator with group g in that state (StableTwo: leader m1 and follower m2,
//	    generation 2, assignments L and F; PreparingRebalance: m1 stable and a new member's join
//	    pending; Dead: forced, as the cache holds a group for a moment after unloading it)
//	join member=<m|new|nobody> [protocols=range|roundrobin|none|changed] [type=consumer] [group=g] [session=10000]
//	sync member=<m|nobody> gen=<gen> [assign=m1:L,m2:F] [group=g]
//	heartbeat member=<m|nobody|simple> gen=<gen> [group=g]
//	leave member=<m|nobody> [group=g]
//	commit member=<m|nobody|simple> gen=<gen> [group=g]   (commits t-0 at 5)
//	fetch [group=g] [partitions=t-0,t-1]                   (committed offsets)
//	describe [group=g]
//	list
//	offsets t-1=9                                          (puts a committed offset in the cache)
//	coordinator <inactive|not-owner|loading>
//	transition from=<state> to=<state>                     (GroupMetadata.transitionTo alone)
//
// After a request the output is its answer ("pending" when the coordinator holds it), the answers
// of earlier held requests that it released, and the group's state line.
func TestGroupStateScripts(t *testing.T) {
	datadriven.Walk(t, "testdata/group_states", func(t *testing.T, path string) {
		var s *groupScript
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd == "setup" || d.Cmd == "transition" {
				s = &groupScript{t: t, aliases: map[string]string{}, ids: map[string]string{}}
			}
			if s == nil {
				t.Fatalf("%s: the script must start with setup", d.Pos)
			}
			s.t = t
			return s.run(d)
		})
	})
}

type groupScript struct {
	t       *testing.T
	h       *harness
	aliases map[string]string // member id -> m1...
	ids     map[string]string // m1... -> member id
	pending []pendingRequest
	next    int
}

type pendingRequest struct {
	label string
	join  *joinFuture
	sync  *syncFuture
}

func (s *groupScript) alias(id string) string {
	if id == "" {
		return `""`
	}
	if a, ok := s.aliases[id]; ok {
		return a
	}
	s.next++
	a := fmt.Sprintf("m%d", s.next)
	s.aliases[id], s.ids[a] = a, id
	return a
}

func (s *groupScript) member(d *datadriven.TestData) string {
	var m string
	d.ScanArgs(s.t, "member", &m)
	switch m {
	case "new", "simple":
		return ""
	case "nobody":
		return "nobody"
	}
	id, ok := s.ids[m]
	if !ok {
		s.t.Fatalf("%s: unknown member %s", d.Pos, m)
	}
	return id
}

func (s *groupScript) group(d *datadriven.TestData) string {
	g := testGroup
	if d.HasArg("group") {
		d.ScanArgs(s.t, "group", &g)
	}
	return g
}

func (s *groupScript) generation(d *datadriven.TestData) int32 {
	var v string
	d.ScanArgs(s.t, "gen", &v)
	cur := int32(-1)
	if gm := s.h.mgr.GetGroup(testGroup); gm != nil {
		cur = s.h.generation(testGroup)
	}
	if rest, ok := strings.CutPrefix(v, "cur"); ok {
		n := 0
		if rest != "" {
			n, _ = strconv.Atoi(strings.TrimPrefix(rest, "+"))
		}
		return cur + int32(n)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		s.t.Fatalf("%s: gen=%s", d.Pos, v)
	}
	return int32(n)
}

func (s *groupScript) protocols(d *datadriven.TestData) []Protocol {
	p := "range"
	if d.HasArg("protocols") {
		d.ScanArgs(s.t, "protocols", &p)
	}
	switch p {
	case "range":
		return rangeProto
	case "roundrobin":
		return []Protocol{{Name: "roundrobin"}}
	case "changed":
		return []Protocol{{Name: "range", Metadata: []byte("other")}}
	case "none":
		return nil
	}
	s.t.Fatalf("%s: protocols=%s", d.Pos, p)
	return nil
}

func (s *groupScript) joinResult(r JoinGroupResult) string {
	out := errName(r.ErrorCode)
	if r.ErrorCode == 0 {
		members := make([]string, 0, len(r.Members))
		for _, m := range r.Members {
			members = append(members, s.alias(m.MemberID))
		}
		sort.Strings(members)
		out += fmt.Sprintf(" member=%s gen=%d leader=%s protocol=%s members=[%s]", s.alias(r.MemberID), r.GenerationID,
			s.alias(r.LeaderID), r.SubProtocol, strings.Join(members, " "))
	}
	return out
}

func (s *groupScript) syncResult(r syncResult) string {
	if r.code != 0 {
		return errName(r.code)
	}
	return fmt.Sprintf("NONE assignment=%q", r.assignment)
}

// released lists the held requests answered since the last command.
func (s *groupScript) released() string {
	var b strings.Builder
	kept := s.pending[:0]
	for _, p := range s.pending {
		switch {
		case p.join != nil && p.join.done():
			fmt.Fprintf(&b, "%s join: %s\n", p.label, s.joinResult(p.join.get(s.t)))
		case p.sync != nil && p.sync.done():
			fmt.Fprintf(&b, "%s sync: %s\n", p.label, s.syncResult(p.sync.get(s.t)))
		default:
			kept = append(kept, p)
		}
	}
	s.pending = kept
	return b.String()
}

// groupLine is "group g: <state> gen=N leader=m protocol=p members=[...]".
func (s *groupScript) groupLine(name string) string {
	g := s.h.mgr.GetGroup(name)
	if g == nil {
		return fmt.Sprintf("group %s: <none>\n", name)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	members := make([]string, 0, len(g.members))
	for id := range g.members {
		members = append(members, s.alias(id))
	}
	sort.Strings(members)
	leader := "-"
	if g.leaderID != "" {
		leader = s.alias(g.leaderID)
	}
	return fmt.Sprintf("group %s: %s gen=%d leader=%s members=[%s]\n", name, g.state, g.generationID, leader, strings.Join(members, " "))
}

func (s *groupScript) run(d *datadriven.TestData) string {
	t := s.t
	var out strings.Builder
	group := testGroup
	switch d.Cmd {
	case "setup":
		var state string
		d.ScanArgs(t, "state", &state)
		s.setup(d, state)
	case "join":
		group = s.group(d)
		id := s.member(d)
		typ, session := "consumer", int32(testSession)
		if d.HasArg("type") {
			d.ScanArgs(t, "type", &typ)
		}
		if d.HasArg("session") {
			var n int
			d.ScanArgs(t, "session", &n)
			session = int32(n)
		}
		f := &joinFuture{ch: make(chan JoinGroupResult, 1)}
		s.h.c.HandleJoinGroup(group, id, "client", "/127.0.0.1", testRebalance, session, typ, s.protocols(d),
			func(r JoinGroupResult) { f.ch <- r })
		if f.done() {
			fmt.Fprintf(&out, "join: %s\n", s.joinResult(f.get(t)))
		} else {
			out.WriteString("join: pending\n")
			label := "new"
			if id != "" {
				label = s.alias(id)
			}
			s.pending = append(s.pending, pendingRequest{label: label, join: f})
		}
	case "sync":
		id := s.member(d)
		assignment := map[string][]byte{}
		if d.HasArg("assign") {
			var spec string
			d.ScanArgs(t, "assign", &spec)
			for _, kv := range strings.Split(spec, ",") {
				m, a, _ := strings.Cut(kv, ":")
				assignment[s.ids[m]] = []byte(a)
			}
		}
		group = s.group(d)
		f := s.h.sync(group, s.generation(d), id, assignment)
		if f.done() {
			fmt.Fprintf(&out, "sync: %s\n", s.syncResult(f.get(t)))
		} else {
			out.WriteString("sync: pending\n")
			s.pending = append(s.pending, pendingRequest{label: s.alias(id), sync: f})
		}
	case "heartbeat":
		group = s.group(d)
		fmt.Fprintf(&out, "heartbeat: %s\n", errName(s.h.heartbeat(group, s.member(d), s.generation(d))))
	case "leave":
		group = s.group(d)
		fmt.Fprintf(&out, "leave: %s\n", errName(s.h.leave(group, s.member(d))))
	case "commit":
		group = s.group(d)
		fmt.Fprintf(&out, "commit: %s\n", errName(s.h.commitCode(group, s.member(d), s.generation(d))))
	case "fetch":
		group = s.group(d)
		tps := []common.TopicPartition{tp("t", 0)}
		if d.HasArg("partitions") {
			tps = nil
			var spec string
			d.ScanArgs(t, "partitions", &spec)
			for _, p := range strings.Split(spec, ",") {
				i := strings.LastIndexByte(p, '-')
				n, _ := strconv.Atoi(p[i+1:])
				tps = append(tps, tp(p[:i], int32(n)))
			}
		}
		code, offsets := s.h.c.HandleFetchOffsets(group, tps)
		fmt.Fprintf(&out, "fetch: %s", errName(code))
		for _, p := range tps {
			if code == 0 {
				fmt.Fprintf(&out, " %s=%d", p, offsets[p].Offset)
			}
		}
		out.WriteString("\n")
	case "describe":
		group = s.group(d)
		code, sum := s.h.c.HandleDescribeGroup(group)
		fmt.Fprintf(&out, "describe: %s state=%s protocolType=%s protocol=%s", errName(code), sum.State, sum.ProtocolType, sum.Protocol)
		for _, m := range sum.Members {
			fmt.Fprintf(&out, " %s(metadata=%d assignment=%d)", s.alias(m.MemberID), len(m.Metadata), len(m.Assignment))
		}
		out.WriteString("\n")
	case "list":
		code, groups := s.h.c.HandleListGroups()
		fmt.Fprintf(&out, "list: %s", errName(code))
		for _, g := range groups {
			fmt.Fprintf(&out, " %s(%s)", g.GroupID, g.ProtocolType)
		}
		out.WriteString("\n")
	case "offsets":
		g := s.h.mgr.GetGroup(testGroup)
		g.mu.Lock()
		for _, a := range d.CmdArgs {
			i := strings.LastIndexByte(a.Key, '-')
			p, _ := strconv.Atoi(a.Key[i+1:])
			o, _ := strconv.ParseInt(a.Vals[0], 10, 64)
			g.offsets[tp(a.Key[:i], int32(p))] = OffsetAndMetadata{Offset: o, Metadata: "m"}
		}
		g.mu.Unlock()
		return ""
	case "coordinator":
		switch d.CmdArgs[0].Key {
		case "inactive":
			s.h.c.isActive.Store(false)
		case "not-owner":
			delete(s.h.mgr.ownedPartitions, 0)
		case "loading":
			s.h.mgr.loadingPartitions[0] = true
		default:
			t.Fatalf("%s: coordinator %s", d.Pos, d.CmdArgs[0].Key)
		}
		return ""
	case "transition":
		var from, to string
		d.ScanArgs(t, "from", &from)
		d.ScanArgs(t, "to", &to)
		g := NewGroupMetadata("x")
		g.state = parseGroupState(t, from)
		if err := g.TransitionTo(parseGroupState(t, to)); err != nil {
			return fmt.Sprintf("error: %v\nstate: %s\n", err, g.state)
		}
		return fmt.Sprintf("ok\nstate: %s\n", g.state)
	default:
		t.Fatalf("%s: unknown command %s", d.Pos, d.Cmd)
	}
	out.WriteString(s.released())
	out.WriteString(s.groupLine(group))
	return out.String()
}

// setup builds group g in a state through the coordinator's own API.
func (s *groupScript) setup(d *datadriven.TestData, state string) {
	t := s.t
	s.h = newHarness(t)
	h := s.h
	switch state {
	case "Empty":
		m := h.joinAndSync(testGroup)
		s.alias(m)
		if c := h.leave(testGroup, m); c != 0 {
			t.Fatalf("leave: %s", errName(c))
		}
	case "PreparingRebalance":
		s.alias(h.joinAndSync(testGroup))
		f := h.join(testGroup, "", rangeProto)
		if f.done() {
			t.Fatal("the second join was answered before the first member rejoined")
		}
		s.pending = append(s.pending, pendingRequest{label: "new", join: f})
	case "AwaitingSync":
		s.alias(h.join(testGroup, "", rangeProto).get(t).MemberID)
	case "Stable":
		s.alias(h.joinAndSync(testGroup))
	case "StableTwo":
		leader := h.joinAndSync(testGroup)
		s.alias(leader)
		jf := h.join(testGroup, "", rangeProto)
		lr := h.join(testGroup, leader, rangeProto).get(t)
		fr := jf.get(t)
		s.alias(fr.MemberID)
		fs := h.sync(testGroup, lr.GenerationID, fr.MemberID, nil)
		h.sync(testGroup, lr.GenerationID, leader, map[string][]byte{leader: []byte("L"), fr.MemberID: []byte("F")}).get(t)
		fs.get(t)
	case "Dead":
		s.alias(h.joinAndSync(testGroup))
		g := h.mgr.GetGroup(testGroup)
		g.mu.Lock()
		g.mustTransitionTo(Dead)
		g.mu.Unlock()
	default:
		t.Fatalf("%s: setup state=%s", d.Pos, state)
	}
}

func parseGroupState(t *testing.T, s string) GroupState {
	for _, st := range []GroupState{Empty, PreparingRebalance, AwaitingSync, Stable, Dead} {
		if st.String() == s {
			return st
		}
	}
	t.Fatalf("unknown group state %q", s)
	return 0
}

// errName is the error code's Kafka name (NONE for 0).
func errName(c int16) string {
	if c == -100 {
		return "<no answer>"
	}
	if c == 0 {
		return "NONE"
	}
	if e, ok := protocol.ErrorForCode(c).(*protocol.Error); ok {
		return e.Name
	}
	return fmt.Sprint(c)
}
