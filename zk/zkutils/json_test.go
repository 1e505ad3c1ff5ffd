package zkutils

import (
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
)

// znodeExample is one znode content of docs/formats.md §1.2: how to
// build it, the exact bytes Kafka writes, and a decode that must reproduce the
// bytes when re-encoded.
type znodeExample struct {
	name   string
	path   string
	encode func() []byte
	want   string
	// roundTrip decodes want and re-encodes it.
	roundTrip func(t *testing.T, data []byte) []byte
}

func tp(topic string, p int32) common.TopicPartition {
	return common.TopicPartition{Topic: topic, Partition: p}
}

func plaintext(host string, port int32) RegisteredEndPoint {
	return RegisteredEndPoint{ListenerName: "PLAINTEXT", SecurityProtocol: common.PLAINTEXT, Host: host, Port: port}
}

func must[T any](t *testing.T) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func znodeExamples() []znodeExample {
	brokerRT := func(t *testing.T, data []byte) []byte {
		return must[BrokerInfo](t)(DecodeBrokerInfo(1, data)).Encode()
	}
	return []znodeExample{
		{
			name: "broker v4", path: BrokerIdPath(1),
			encode: func() []byte {
				return NewBrokerInfo(1, 4, []RegisteredEndPoint{plaintext("broker1", 9092)}, -1, "", 1490000000000).Encode()
			},
			want:      `{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://broker1:9092"],"jmx_port":-1,"host":"broker1","timestamp":"1490000000000","port":9092,"version":4}`,
			roundTrip: brokerRT,
		},
		{
			name: "broker v4 rack two listeners", path: BrokerIdPath(2),
			encode: func() []byte {
				return NewBrokerInfo(2, 4, []RegisteredEndPoint{plaintext("broker1", 9092),
					{ListenerName: "SSL", SecurityProtocol: common.SSL, Host: "broker1", Port: 9093}}, 9999, "rack1", 1490000000000).Encode()
			},
			want:      `{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT","SSL":"SSL"},"endpoints":["PLAINTEXT://broker1:9092","SSL://broker1:9093"],"rack":"rack1","jmx_port":9999,"host":"broker1","timestamp":"1490000000000","port":9092,"version":4}`,
			roundTrip: brokerRT,
		},
		{
			name: "broker v2", path: BrokerIdPath(3),
			encode: func() []byte {
				return NewBrokerInfo(3, 2, []RegisteredEndPoint{plaintext("broker1", 9092)}, -1, "rack-ignored", 1490000000000).Encode()
			},
			want:      `{"endpoints":["PLAINTEXT://broker1:9092"],"jmx_port":-1,"host":"broker1","timestamp":"1490000000000","port":9092,"version":2}`,
			roundTrip: brokerRT,
		},
		{
			name: "seqid", path: BrokerSequenceIdPath,
			encode: func() []byte { return []byte("") }, want: "",
		},
		{
			name: "topic assignment", path: TopicPath("foo"),
			encode: func() []byte {
				return ReplicaAssignmentZkData(map[int32][]int32{0: {0, 1}, 1: {1, 2}, 2: {2, 0}})
			},
			want: `{"version":1,"partitions":{"2":[2,0],"1":[1,2],"0":[0,1]}}`,
			roundTrip: func(t *testing.T, data []byte) []byte {
				return ReplicaAssignmentZkData(must[map[int32][]int32](t)(ParseReplicaAssignment(data)))
			},
		},
		{
			name: "topic assignment 12 partitions", path: TopicPath("twelve"),
			encode: func() []byte {
				m := map[int32][]int32{}
				for p := int32(0); p < 12; p++ {
					m[p] = []int32{p % 3}
				}
				return ReplicaAssignmentZkData(m)
			},
			want: `{"version":1,"partitions":{"2":[2],"5":[2],"8":[2],"7":[1],"1":[1],"4":[1],"11":[2],"6":[0],"0":[0],"9":[0],"3":[0],"10":[1]}}`,
		},
		{
			name: "partition state", path: TopicPartitionLeaderAndIsrPath("foo", 0),
			encode: func() []byte {
				return LeaderAndIsrZkData(LeaderAndIsr{Leader: 1, LeaderEpoch: 0, Isr: []int32{1, 2, 3}}, 1)
			},
			want: `{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}`,
			roundTrip: func(t *testing.T, data []byte) []byte {
				l := must[LeaderIsrAndControllerEpoch](t)(DecodeLeaderIsrAndControllerEpoch(data, 7))
				if l.LeaderAndIsr.ZkVersion != 7 {
					t.Errorf("zkVersion = %d, want 7", l.LeaderAndIsr.ZkVersion)
				}
				return LeaderAndIsrZkData(l.LeaderAndIsr, l.ControllerEpoch)
			},
		},
		{
			name: "controller", path: ControllerPath,
			encode: func() []byte { return ControllerZkData(1, 1490000000000) },
			want:   `{"version":1,"brokerid":1,"timestamp":"1490000000000"}`,
			roundTrip: func(t *testing.T, data []byte) []byte {
				return ControllerZkData(must[int32](t)(ParseControllerId(data)), 1490000000000)
			},
		},
		{
			name: "controller epoch", path: ControllerEpochPath,
			encode: func() []byte { return ControllerEpochZkData(5) }, want: "5",
			roundTrip: func(t *testing.T, data []byte) []byte {
				return ControllerEpochZkData(must[int32](t)(ParseControllerEpoch(data)))
			},
		},
		{
			name: "delete topic", path: DeleteTopicPath("foo"),
			encode: func() []byte { return []byte("") }, want: "",
		},
		{
			name: "reassign partitions", path: ReassignPartitionsPath,
			encode: func() []byte {
				return FormatAsReassignmentJson([]PartitionReplicas{{tp("foo", 1), []int32{5, 6}}, {tp("bar", 0), []int32{2, 3, 4}}})
			},
			want: `{"version":1,"partitions":[{"topic":"foo","partition":1,"replicas":[5,6]},{"topic":"bar","partition":0,"replicas":[2,3,4]}]}`,
			roundTrip: func(t *testing.T, data []byte) []byte {
				return FormatAsReassignmentJson(must[[]PartitionReplicas](t)(ParsePartitionReassignmentDataWithoutDedup(data)))
			},
		},
		{
			name: "preferred replica election", path: PreferredReplicaLeaderElectionPath,
			encode: func() []byte {
				return PreferredReplicaElectionZkData([]common.TopicPartition{tp("foo", 0), tp("foo", 1)})
			},
			want: `{"version":1,"partitions":[{"topic":"foo","partition":0},{"topic":"foo","partition":1}]}`,
		},
		{
			name: "isr change", path: IsrChangeNotificationPath + "/isr_change_0000000000",
			encode: func() []byte { return IsrChangeNotificationZkData([]common.TopicPartition{tp("foo", 0), tp("bar", 3)}) },
			want:   `{"version":1,"partitions":[{"topic":"foo","partition":0},{"topic":"bar","partition":3}]}`,
			roundTrip: func(t *testing.T, data []byte) []byte {
				return IsrChangeNotificationZkData(must[[]common.TopicPartition](t)(ParseIsrChangeNotification(data)))
			},
		},
		{
			name: "topic config", path: EntityConfigPath(ConfigTypeTopic, "foo"),
			encode: func() []byte {
				return EntityConfigZkData(map[string]string{"cleanup.policy": "compact", "retention.ms": "86400000"})
			},
			want: `{"version":1,"config":{"retention.ms":"86400000","cleanup.policy":"compact"}}`,
			roundTrip: func(t *testing.T, data []byte) []byte {
				return EntityConfigZkData(must[map[string]string](t)(ParseEntityConfig(data)))
			},
		},
		{
			name: "empty config", path: EntityConfigPath(ConfigTypeClient, ConfigEntityNameDefault),
			encode: func() []byte { return EntityConfigZkData(nil) }, want: `{"version":1,"config":{}}`,
			roundTrip: func(t *testing.T, data []byte) []byte {
				return EntityConfigZkData(must[map[string]string](t)(ParseEntityConfig(data)))
			},
		},
		{
			name: "config change v2", path: ConfigChangesPath + "/config_change_0000000000",
			encode: func() []byte { return ConfigChangeZkData("topics/foo") },
			want:   `{"version":2,"entity_path":"topics/foo"}`,
			roundTrip: func(t *testing.T, data []byte) []byte {
				return ConfigChangeZkData(must[ConfigChangeNotification](t)(ParseConfigChangeNotification(data)).EntityPath)
			},
		},
		{
			name: "cluster id", path: ClusterIdPath,
			encode: func() []byte { return ClusterIdZkData("tyXLd8kzTOysPLXG8dVuGQ") },
			want:   `{"version":"1","id":"tyXLd8kzTOysPLXG8dVuGQ"}`,
			roundTrip: func(t *testing.T, data []byte) []byte {
				return ClusterIdZkData(must[string](t)(ParseClusterId(data)))
			},
		},
		{
			name: "acl", path: KafkaAclResourcePath("Topic", "foo"),
			encode: func() []byte { return AclZkData([]AclEntry{{"User:alice", "Allow", "Read", "*"}}) },
			want:   `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"}]}`,
			roundTrip: func(t *testing.T, data []byte) []byte {
				return AclZkData(must[[]AclEntry](t)(ParseAcls(data)))
			},
		},
		{
			name: "acl change", path: KafkaAclChangesPath + "/acl_changes_0000000000",
			encode: func() []byte { return AclChangeZkData("Topic", "foo") }, want: "Topic:foo",
		},
		{
			name: "consumer registration", path: ZKGroupDirs{"g1"}.ConsumerRegistryDir() + "/g1_host-1490000000000-5f3b2a1c",
			encode: func() []byte {
				return ConsumerRegistration{Version: 1, Subscription: []TopicStreams{{"foo", 2}}, Pattern: StaticPattern, Timestamp: "1490000000000"}.Encode()
			},
			want: `{"version":1,"subscription":{"foo":2},"pattern":"static","timestamp":"1490000000000"}`,
			roundTrip: func(t *testing.T, data []byte) []byte {
				return must[ConsumerRegistration](t)(DecodeConsumerRegistration(data)).Encode()
			},
		},
		{
			name: "consumer registration wildcard", path: ZKGroupDirs{"g2"}.ConsumerRegistryDir() + "/g2_c",
			encode: func() []byte {
				return ConsumerRegistration{Version: 1, Subscription: []TopicStreams{{JSONEscapeString("foo.*"), 1}}, Pattern: WhiteListPattern, Timestamp: "1490000000000"}.Encode()
			},
			want: `{"version":1,"subscription":{"foo.*":1},"pattern":"white_list","timestamp":"1490000000000"}`,
			roundTrip: func(t *testing.T, data []byte) []byte {
				return must[ConsumerRegistration](t)(DecodeConsumerRegistration(data)).Encode()
			},
		},
		{
			name: "consumer owner", path: GetConsumerPartitionOwnerPath("g1", "foo", 0),
			encode: func() []byte { return []byte("g1_host-1490000000000-5f3b2a1c-0") }, want: "g1_host-1490000000000-5f3b2a1c-0",
		},
		{
			name: "consumer offset", path: ConsumerOffsetPath("g1", tp("foo", 0)),
			encode: func() []byte { return ConsumerOffsetZkData(42) }, want: "42",
			roundTrip: func(t *testing.T, data []byte) []byte {
				return ConsumerOffsetZkData(must[int64](t)(ParseConsumerOffset(data)))
			},
		},
	}
}

// TestZnodeJSONGolden checks every znode example of docs/formats.md §1.2 byte for byte,
// and that decoding it and encoding again gives the same bytes.
func TestZnodeJSONGolden(t *testing.T) {
	for _, ex := range znodeExamples() {
		t.Run(ex.name, func(t *testing.T) {
			if got := string(ex.encode()); got != ex.want {
				t.Fatalf("encode:\n got %s\nwant %s", got, ex.want)
			}
			if ex.roundTrip != nil {
				if got := string(ex.roundTrip(t, []byte(ex.want))); got != ex.want {
					t.Fatalf("decode+encode:\n got %s\nwant %s", got, ex.want)
				}
			}
		})
	}
}

func TestDecodeBrokerInfoVersions(t *testing.T) {
	v1 := `{"jmx_port":-1,"timestamp":"1","host":"h","version":1,"port":9092}`
	b, err := DecodeBrokerInfo(5, []byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	if want := []RegisteredEndPoint{plaintext("h", 9092)}; !reflect.DeepEqual(b.EndPoints, want) {
		t.Fatalf("v1 endpoints = %+v, want %+v", b.EndPoints, want)
	}
	v3 := `{"jmx_port":-1,"timestamp":"2","endpoints":["PLAINTEXT://h:1","SSL://[::1]:2"],"host":"h","version":3,"port":1,"rack":null}`
	b, err = DecodeBrokerInfo(6, []byte(v3))
	if err != nil {
		t.Fatal(err)
	}
	if b.Rack != "" || len(b.EndPoints) != 2 || b.EndPoints[1].Host != "::1" || b.EndPoints[1].SecurityProtocol != common.SSL {
		t.Fatalf("v3 = %+v", b)
	}
	if got := b.EndPoints[1].ConnectionString(); got != "SSL://[::1]:2" {
		t.Fatalf("ipv6 connection string = %s", got)
	}
	// A listener name that is not a protocol needs the v4 map.
	v4 := `{"listener_security_protocol_map":{"INTERNAL":"SASL_PLAINTEXT"},"endpoints":["INTERNAL://:9094"],"jmx_port":-1,"host":null,"timestamp":"3","port":-1,"version":4}`
	b, err = DecodeBrokerInfo(7, []byte(v4))
	if err != nil {
		t.Fatal(err)
	}
	if e := b.EndPoints[0]; e.ListenerName != "INTERNAL" || e.SecurityProtocol != common.SASL_PLAINTEXT || e.Host != "" || e.Port != 9094 {
		t.Fatalf("v4 endpoint = %+v", e)
	}
	if string(b.Encode()) != v4 {
		t.Fatalf("v4 re-encode = %s", b.Encode())
	}
	for _, bad := range []string{
		`{"version":0,"host":"h","port":1}`,
		`{"version":2}`,
		`{"version":2,"endpoints":["INTERNAL://h:1"]}`,
		`{"version":2,"endpoints":["PLAINTEXT://h:1","PLAINTEXT://h:2"]}`,
		`not json`,
	} {
		if _, err := DecodeBrokerInfo(1, []byte(bad)); err == nil {
			t.Errorf("DecodeBrokerInfo(%s) succeeded", bad)
		}
	}
}

func TestParseControllerIdOldFormat(t *testing.T) {
	if id, err := ParseControllerId([]byte("3")); err != nil || id != 3 {
		t.Fatalf("bare int: %d, %v", id, err)
	}
	if _, err := ParseControllerId([]byte("x")); err == nil {
		t.Fatal("garbage accepted")
	}
}

func TestParsePreferredReplicaElectionData(t *testing.T) {
	if _, err := ParsePreferredReplicaElectionData([]byte("junk")); !errors.Is(err, ErrPreferredReplicaElectionDataEmpty) {
		t.Fatalf("non-JSON: %v", err)
	}
	if _, err := ParsePreferredReplicaElectionData([]byte(`{"version":1}`)); !errors.Is(err, ErrPreferredReplicaElectionDataEmpty) {
		t.Fatalf("no partitions: %v", err)
	}
	dup := `{"version":1,"partitions":[{"topic":"a","partition":0},{"topic":"a","partition":0}]}`
	if _, err := ParsePreferredReplicaElectionData([]byte(dup)); err == nil {
		t.Fatal("duplicates accepted")
	}
	s, err := ParsePreferredReplicaElectionData(PreferredReplicaElectionZkData([]common.TopicPartition{tp("a", 0), tp("b", 1)}))
	if err != nil || len(s) != 2 {
		t.Fatalf("round trip: %v %v", s, err)
	}
}

func TestConfigChangeV1AndBadVersions(t *testing.T) {
	n, err := ParseConfigChangeNotification([]byte(`{"version":1,"entity_type":"topics","entity_name":"foo"}`))
	if err != nil || n.EntityPath != "topics/foo" {
		t.Fatalf("v1: %+v %v", n, err)
	}
	for _, bad := range []string{`{"version":1,"entity_type":"users","entity_name":"u"}`, `{"version":3,"entity_path":"x"}`, `plain`} {
		if _, err := ParseConfigChangeNotification([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestScalaOrders pins the hash orders on their own (the keys of the 5-field
// maps Kafka writes, and a Properties that forces a Hashtable rehash).
func TestScalaOrders(t *testing.T) {
	if got := scalaImmutableMapOrder([]string{"a", "b", "c", "d"}); !reflect.DeepEqual(got, []string{"a", "b", "c", "d"}) {
		t.Errorf("small immutable maps keep insertion order, got %v", got)
	}
	got := scalaMutableHashMapOrder([]string{"version", "host", "port", "endpoints", "jmx_port", "timestamp"})
	want := []string{"endpoints", "jmx_port", "host", "timestamp", "port", "version"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mutable order = %v, want %v", got, want)
	}
	// Hashtable: every key survives a rehash (11 -> 23 -> 47 buckets).
	var keys []string
	for i := 0; i < 40; i++ {
		keys = append(keys, "k"+strconv.Itoa(i))
	}
	if o := javaHashtableOrder(keys); len(o) != 40 {
		t.Fatalf("hashtable lost keys: %d", len(o))
	}
}

func TestSanitizeQuotaID(t *testing.T) {
	for in, want := range map[string]string{"alice": "alice", "a b": "a%20b", "CN=x,O=*": "CN%3Dx%2CO%3D%2A", "a~b": "a%7Eb"} {
		if got := SanitizeQuotaID(in); got != want {
			t.Errorf("SanitizeQuotaID(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzDecoders feeds arbitrary bytes to every decoder: none may panic.
func FuzzDecoders(f *testing.F) {
	for _, ex := range znodeExamples() {
		f.Add([]byte(ex.want))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = DecodeBrokerInfo(1, data)
		_, _ = DecodeLeaderIsrAndControllerEpoch(data, 0)
		_, _ = ParseControllerId(data)
		_, _ = ParseControllerEpoch(data)
		_, _ = ParseReplicaAssignment(data)
		_, _ = ParsePartitionReassignmentData(data)
		_, _ = ParsePreferredReplicaElectionData(data)
		_, _ = ParseIsrChangeNotification(data)
		_, _ = ParseEntityConfig(data)
		_, _ = ParseConfigChangeNotification(data)
		_, _ = ParseClusterId(data)
		_, _ = ParseAcls(data)
		_, _, _ = ParseAclChange(data)
		_, _ = DecodeConsumerRegistration(data)
		_, _ = ParseConsumerOffset(data)
	})
}
