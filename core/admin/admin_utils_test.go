package admin

import (
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

func TestMain(m *testing.M) { os.Exit(zktest.Main(m, 1)) }

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	defer func() { _ = recover() }()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// newAdmin connects to a fresh chroot with the persistent paths in place and
// registers brokers with the given racks ("" for none), ids 0..len-1.
func newAdmin(t *testing.T, racks ...string) *AdminUtils {
	t.Helper()
	l := logrus.New()
	l.SetOutput(testWriter{t})
	l.SetLevel(logrus.WarnLevel)
	log := logrus.NewEntry(l)
	z, err := zkutils.Connect(zktest.Chroot(t), zktest.SessionTimeout, 20*time.Second, false, log, common.SystemTime{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(z.Close)
	if err := z.SetupCommonPaths(); err != nil {
		t.Fatal(err)
	}
	for id, rack := range racks {
		ep := zkutils.RegisteredEndPoint{ListenerName: "PLAINTEXT", SecurityProtocol: common.PLAINTEXT, Host: "localhost", Port: int32(9092 + id)}
		if err := z.RegisterBrokerInZk(zkutils.NewBrokerInfo(int32(id), 4, []zkutils.RegisteredEndPoint{ep}, -1, rack, 1)); err != nil {
			t.Fatal(err)
		}
	}
	return NewAdminUtils(z, rand.New(rand.NewPCG(7, 7)), log)
}

func readNode(t *testing.T, a *AdminUtils, path string) string {
	t.Helper()
	data, _, err := a.ZkUtils.ReadData(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return string(data)
}

// TestCreateTopicWritesKafkaJSON checks the bytes of /config/topics/T and
// /brokers/topics/T and /config/topics/T (docs/formats.md §1.2) and the create-time checks.
func TestCreateTopicWritesKafkaJSON(t *testing.T) {
	a := newAdmin(t, "", "", "")
	assignment := map[int32][]int32{0: {0, 1}, 1: {1, 2}, 2: {2, 0}}
	cfg := map[string]string{"retention.ms": "86400000", "cleanup.policy": "compact"}
	if err := a.CreateOrUpdateTopicPartitionAssignmentPathInZK("foo", assignment, cfg, false); err != nil {
		t.Fatal(err)
	}
	if got, want := readNode(t, a, "/brokers/topics/foo"), `{"version":1,"partitions":{"2":[2,0],"1":[1,2],"0":[0,1]}}`; got != want {
		t.Errorf("topic znode\n got %s\nwant %s", got, want)
	}
	if got, want := readNode(t, a, "/config/topics/foo"), `{"version":1,"config":{"retention.ms":"86400000","cleanup.policy":"compact"}}`; got != want {
		t.Errorf("config znode\n got %s\nwant %s", got, want)
	}
	// A topic without overrides still gets an (empty) config node.
	if err := a.CreateTopic("bar", 4, 2, nil, RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	if got := readNode(t, a, "/config/topics/bar"); got != `{"version":1,"config":{}}` {
		t.Errorf("empty config znode %s", got)
	}
	parsed, err := zkutils.ParseReplicaAssignment([]byte(readNode(t, a, "/brokers/topics/bar")))
	if err != nil || len(parsed) != 4 {
		t.Fatalf("bar assignment %v %v", parsed, err)
	}

	errCases := []struct {
		topic string
		a     map[int32][]int32
		cfg   map[string]string
		kind  error
		msg   string
	}{
		{"foo", assignment, nil, ErrTopicExists, "Topic 'foo' already exists."},
		{"ba.r", assignment, nil, ErrInvalidTopic, ""},
		{"f.o_o", assignment, nil, ErrInvalidTopic, ""},
		{"x", map[int32][]int32{0: {0, 1}, 1: {1}}, nil, ErrInvalidReplicaAssignment, "All partitions should have the same number of replicas"},
		{"x", map[int32][]int32{0: {1, 1}}, nil, ErrInvalidReplicaAssignment, "Duplicate replica assignment found: Map(0 -> List(1, 1))"},
		{"x", assignment, map[string]string{"no.such": "1"}, ErrInvalidConfig, "Unknown Log configuration no.such."},
		{"x", assignment, map[string]string{"retention.ms": "abc"}, ErrInvalidConfig, "Invalid value abc for configuration retention.ms: Not a number of type LONG"},
		{strings.Repeat("t", 250), assignment, nil, ErrInvalidTopic, "topic name is illegal, can't be longer than 249 characters"},
	}
	// "ba_r" exists so that "ba.r" collides with it.
	if err := a.CreateOrUpdateTopicPartitionAssignmentPathInZK("ba_r", assignment, nil, false); err != nil {
		t.Fatal(err)
	}
	errCases[1].msg = "Topic 'ba.r' collides with existing topics: ba_r"
	errCases[2].kind, errCases[2].msg = nil, ""
	for _, c := range errCases {
		err := a.CreateOrUpdateTopicPartitionAssignmentPathInZK(c.topic, c.a, c.cfg, false)
		if c.kind == nil {
			if err != nil {
				t.Errorf("%s: %v", c.topic, err)
			}
			continue
		}
		if err == nil || !errors.Is(err, c.kind) || err.Error() != c.msg {
			t.Errorf("%.20s: got %v, want %q", c.topic, err, c.msg)
		}
	}
}

func TestCreateTopicRackChecks(t *testing.T) {
	a := newAdmin(t, "a", "", "b")
	err := a.CreateTopic("t", 1, 1, nil, RackAwareEnforced)
	if err == nil || err.Error() != "Not all brokers have rack information. Add --disable-rack-aware in command line to make replica assignment without rack information." {
		t.Fatalf("enforced: %v", err)
	}
	if err := a.CreateTopic("t", 3, 3, nil, RackAwareDisabled); err != nil {
		t.Fatalf("disabled: %v", err)
	}
	err = a.CreateTopic("u", 1, 4, nil, RackAwareSafe)
	if err == nil || err.Error() != "replication factor: 4 larger than available brokers: 3" || !errors.Is(err, ErrInvalidReplicationFactor) {
		t.Fatalf("rf: %v", err)
	}
}

// TestAddPartitions reproduces AdminUtils.addPartitions' placement and the manual-assignment checks.
func TestAddPartitions(t *testing.T) {
	a := newAdmin(t, "", "", "", "")
	if err := a.CreateOrUpdateTopicPartitionAssignmentPathInZK("foo",
		map[int32][]int32{0: {0, 1}, 1: {1, 2}, 2: {2, 3}, 3: {3, 0}}, nil, false); err != nil {
		t.Fatal(err)
	}
	if err := a.AddPartitions("foo", 8, "", true, RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	got, err := a.ZkUtils.GetPartitionAssignmentForTopics([]string{"foo"})
	if err != nil {
		t.Fatal(err)
	}
	if r := render(got["foo"], 0, 8); r != "0:[0,1] 1:[1,2] 2:[2,3] 3:[3,0] 4:[0,2] 5:[1,3] 6:[2,0] 7:[3,1]" {
		t.Errorf("after add: %s", r)
	}
	cases := []struct {
		n      int32
		manual string
		msg    string
	}{
		{8, "", "The number of partitions for a topic can only be increased"},
		{9, "0:1,1:2,2:3,3:0,0:2,1:3,2:0,3:1,1", "The replication factor in manual replication assignment  is not equal to the existing replication factor for the topic 2"},
		{9, "0:1,1:2,2:3,3:0,0:2,1:3,2:0,3:1,1:7", "some specified brokers not available. specified brokers: " + javaIntArrayString([]int32{1, 7}) + "available broker:Set(0, 1, 2, 3)"},
		{9, "0:1,1:2,2:3,3:0,0:2,1:3,2:0,3:1,1:1", "duplicate brokers in replica assignment: " + javaIntArrayString([]int32{1, 1})},
	}
	for _, c := range cases {
		if err := a.AddPartitions("foo", c.n, c.manual, true, RackAwareEnforced); err == nil || err.Error() != c.msg {
			t.Errorf("add %d %q: got %v, want %q", c.n, c.manual, err, c.msg)
		}
	}
	if err := a.AddPartitions("foo", 9, "0:1,1:2,2:3,3:0,0:2,1:3,2:0,3:1,2:1", true, RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	if r, _ := a.ZkUtils.GetReplicasForPartition("foo", 8); len(r) != 2 || r[0] != 2 || r[1] != 1 {
		t.Errorf("manual partition 8 = %v", r)
	}
	if err := a.AddPartitions("nope", 2, "", true, RackAwareEnforced); err == nil || err.Error() != "The topic nope does not exist" {
		t.Errorf("missing topic: %v", err)
	}
}

// TestChangeConfigsAndDelete checks the config znodes, their notifications,
// and the deletion marker.
func TestChangeConfigsAndDelete(t *testing.T) {
	a := newAdmin(t, "")
	if err := a.CreateOrUpdateTopicPartitionAssignmentPathInZK("foo", map[int32][]int32{0: {0}}, nil, false); err != nil {
		t.Fatal(err)
	}
	if err := a.ChangeTopicConfig("foo", map[string]string{"cleanup.policy": "compact"}); err != nil {
		t.Fatal(err)
	}
	if err := a.ChangeBrokerConfig([]int32{0}, map[string]string{LeaderReplicationThrottledRateProp: "100"}); err != nil {
		t.Fatal(err)
	}
	if err := a.ChangeClientIdConfig("c1", map[string]string{ProducerByteRateOverrideProp: "1024"}); err != nil {
		t.Fatal(err)
	}
	if err := a.ChangeUserOrUserClientIdConfig("alice/clients/c1", map[string]string{ConsumerByteRateOverrideProp: "2048"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"/config/topics/foo":                       `{"version":1,"config":{"cleanup.policy":"compact"}}`,
		"/config/brokers/0":                        `{"version":1,"config":{"leader.replication.throttled.rate":"100"}}`,
		"/config/clients/c1":                       `{"version":1,"config":{"producer_byte_rate":"1024"}}`,
		"/config/users/alice/clients/c1":           `{"version":1,"config":{"consumer_byte_rate":"2048"}}`,
		"/config/changes/config_change_0000000000": `{"version":2,"entity_path":"topics/foo"}`,
		"/config/changes/config_change_0000000001": `{"version":2,"entity_path":"brokers/0"}`,
		"/config/changes/config_change_0000000002": `{"version":2,"entity_path":"clients/c1"}`,
		"/config/changes/config_change_0000000003": `{"version":2,"entity_path":"users/alice/clients/c1"}`,
	}
	for path, w := range want {
		if got := readNode(t, a, path); got != w {
			t.Errorf("%s\n got %s\nwant %s", path, got, w)
		}
	}
	errs := []struct {
		err error
		msg string
	}{
		{a.ChangeTopicConfig("nope", nil), `Topic "nope" does not exist.`},
		{a.ChangeBrokerConfig([]int32{0}, map[string]string{"x": "1"}), "requirement failed: Unknown Dynamic Configuration 'x'."},
		{a.ChangeBrokerConfig([]int32{0}, map[string]string{LeaderReplicationThrottledRateProp: "-1"}), "Invalid value -1 for configuration leader.replication.throttled.rate: Value must be at least 0"},
		{a.ChangeClientIdConfig("c", map[string]string{ProducerByteRateOverrideProp: "x"}), "Invalid value x for configuration producer_byte_rate: Not a number of type LONG"},
		{a.ChangeUserOrUserClientIdConfig("<default>", map[string]string{ScramSha256: "x"}), "requirement failed: Unknown Dynamic Configuration 'SCRAM-SHA-256'."},
	}
	for _, e := range errs {
		if e.err == nil || e.err.Error() != e.msg {
			t.Errorf("got %v, want %q", e.err, e.msg)
		}
	}
	if err := a.DeleteTopic("foo"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := a.ZkUtils.PathExists("/admin/delete_topics/foo"); !ok {
		t.Error("no deletion marker")
	}
	if err := a.DeleteTopic("foo"); !errors.Is(err, ErrTopicAlreadyMarkedForDeletion) {
		t.Errorf("second delete: %v", err)
	}
	if err := a.DeleteTopic("nope"); !errors.Is(err, ErrUnknownTopicOrPartition) || err.Error() != "Topic `nope` to delete does not exist" {
		t.Errorf("unknown delete: %v", err)
	}
}

func TestFormatProperties(t *testing.T) {
	// Properties order, as the config znode writes it (docs/formats.md §1.2).
	if got := FormatProperties(map[string]string{"retention.ms": "86400000", "cleanup.policy": "compact"}); got != "retention.ms=86400000,cleanup.policy=compact" {
		t.Errorf("got %s", got)
	}
	if got := FormatProperties(nil); got != "" {
		t.Errorf("empty: %q", got)
	}
}
