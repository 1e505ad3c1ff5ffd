package admin

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func brokers(ids ...int32) []BrokerMetadata {
	out := make([]BrokerMetadata, len(ids))
	for i, id := range ids {
		out[i] = BrokerMetadata{ID: id}
	}
	return out
}

// render writes an assignment as "0:[0,1,2] 1:[1,2,3] ...".
func render(a map[int32][]int32, from, n int32) string {
	var parts []string
	for p := from; p < from+n; p++ {
		r := make([]string, len(a[p]))
		for i, b := range a[p] {
			r[i] = fmt.Sprint(b)
		}
		parts = append(parts, fmt.Sprintf("%d:[%s]", p, strings.Join(r, ",")))
	}
	if len(a) != int(n) {
		parts = append(parts, fmt.Sprintf("(%d partitions)", len(a)))
	}
	return strings.Join(parts, " ")
}

// TestAssignReplicasWorkedExamples replays the worked examples of AdminUtils.assignReplicasToBrokers
// (start index and replica shift fixed, as AdminUtilsTest does) and of addPartitions exactly.
func TestAssignReplicasWorkedExamples(t *testing.T) {
	racks1 := []BrokerMetadata{{0, "rack1"}, {1, "rack3"}, {2, "rack3"}, {3, "rack2"}, {4, "rack2"}, {5, "rack1"}}
	racks2 := []BrokerMetadata{{0, "a"}, {1, "a"}, {2, "b"}, {3, "b"}}
	cases := []struct {
		name                       string
		brokers                    []BrokerMetadata
		n, rf, start, shift, first int32
		want                       string
	}{
		{"unaware start0 shift0", brokers(0, 1, 2, 3, 4), 10, 3, 0, 0, 0,
			"0:[0,1,2] 1:[1,2,3] 2:[2,3,4] 3:[3,4,0] 4:[4,0,1] 5:[0,2,3] 6:[1,3,4] 7:[2,4,0] 8:[3,0,1] 9:[4,1,2]"},
		{"unaware start2 shift2", brokers(0, 1, 2, 3, 4), 10, 3, 2, 2, 0,
			"0:[2,0,1] 1:[3,1,2] 2:[4,2,3] 3:[0,3,4] 4:[1,4,0] 5:[2,1,3] 6:[3,2,4] 7:[4,3,0] 8:[0,4,1] 9:[1,0,2]"},
		{"unaware start1 shift3", brokers(0, 1, 2, 3, 4), 10, 3, 1, 3, 0,
			"0:[1,0,2] 1:[2,1,3] 2:[3,2,4] 3:[4,3,0] 4:[0,4,1] 5:[1,2,3] 6:[2,3,4] 7:[3,4,0] 8:[4,0,1] 9:[0,1,2]"},
		{"unaware brokers 1..3", brokers(1, 2, 3), 6, 2, 1, 1, 0,
			"0:[2,1] 1:[3,2] 2:[1,3] 3:[2,3] 4:[3,1] 5:[1,2]"},
		{"aware six brokers three racks", racks1, 7, 3, 0, 0, 0,
			"0:[0,3,1] 1:[3,1,5] 2:[1,5,4] 3:[5,4,2] 4:[4,2,0] 5:[2,0,3] 6:[0,4,2]"},
		{"aware two racks", racks2, 8, 3, 0, 0, 0,
			"0:[0,2,1] 1:[2,1,3] 2:[1,3,0] 3:[3,0,2] 4:[0,3,2] 5:[2,0,1] 6:[1,2,3] 7:[3,1,0]"},
		// §4.6: add 4 partitions to a 4-partition topic, fixed start 0 for start and shift.
		{"add partitions", brokers(0, 1, 2, 3), 4, 2, 0, 0, 4,
			"4:[0,2] 5:[1,3] 6:[2,0] 7:[3,1]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := AssignReplicasWith(c.brokers, c.n, c.rf, c.start, c.shift, c.first)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(a, c.first, c.n); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestRackAlternatedBrokerList(t *testing.T) {
	got := RackAlternatedBrokerList(map[int32]string{0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: "rack2", 5: "rack1"})
	if fmt.Sprint(got) != "[0 3 1 5 4 2]" {
		t.Fatalf("got %v", got)
	}
}

func TestAssignReplicasErrors(t *testing.T) {
	cases := []struct {
		brokers   []BrokerMetadata
		n, rf     int32
		kind      error
		wantError string
	}{
		{brokers(0), 0, 1, ErrInvalidPartitions, "number of partitions must be larger than 0"},
		{brokers(0), 1, 0, ErrInvalidReplicationFactor, "replication factor must be larger than 0"},
		{brokers(0), 1, 3, ErrInvalidReplicationFactor, "replication factor: 3 larger than available brokers: 1"},
		{[]BrokerMetadata{{0, "a"}, {1, ""}}, 1, 1, ErrAdminOperation, "Not all brokers have rack information for replica rack aware assignment"},
	}
	for _, c := range cases {
		_, err := AssignReplicasWith(c.brokers, c.n, c.rf, 0, 0, 0)
		if err == nil || err.Error() != c.wantError || !errors.Is(err, c.kind) {
			t.Errorf("got %v, want %q (%v)", err, c.wantError, c.kind)
		}
	}
}

// TestAssignReplicasRandomProperties checks the invariants for random draws:
// every partition has rf distinct replicas and leaders are balanced.
func TestAssignReplicasRandomProperties(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		a, err := AssignReplicasToBrokers(brokers(0, 1, 2, 3, 4, 5), 12, 3, -1, -1, rnd)
		if err != nil {
			t.Fatal(err)
		}
		leaders := map[int32]int{}
		for p, r := range a {
			seen := map[int32]bool{}
			for _, b := range r {
				if seen[b] {
					t.Fatalf("partition %d has duplicate replicas %v", p, r)
				}
				seen[b] = true
			}
			if len(r) != 3 {
				t.Fatalf("partition %d has %d replicas", p, len(r))
			}
			leaders[r[0]]++
		}
		for b, c := range leaders {
			if c != 2 {
				t.Fatalf("broker %d leads %d partitions, want 2", b, c)
			}
		}
	}
}

func TestValidateTopic(t *testing.T) {
	long := strings.Repeat("a", 250)
	cases := map[string]string{
		"":                "topic name is illegal, can't be empty",
		".":               `topic name cannot be "." or ".."`,
		"..":              `topic name cannot be "." or ".."`,
		long:              "topic name is illegal, can't be longer than 249 characters",
		"foo bar":         "topic name foo bar is illegal, contains a character other than ASCII alphanumerics, '.', '_' and '-'",
		"***":             "topic name *** is illegal,  contains a character other than ASCII alphanumerics, '.', '_' and '-'",
		long[:249]:        "",
		"a.b_c-D9":        "",
		"__consumer_offs": "",
	}
	for topic, want := range cases {
		err := ValidateTopic(topic)
		got := ""
		if err != nil {
			got = err.Error()
			if !errors.Is(err, ErrInvalidTopic) {
				t.Errorf("%q: error kind %v", topic, err)
			}
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", topic, got, want)
		}
	}
	if !TopicHasCollision("a.b", "a_b") || TopicHasCollision("a.b", "a-b") || !TopicHasCollisionChars("a_b") || TopicHasCollisionChars("ab") {
		t.Error("collision rules")
	}
	if !IsInternalTopic("__consumer_offsets") || IsInternalTopic("foo") {
		t.Error("internal topics")
	}
}
