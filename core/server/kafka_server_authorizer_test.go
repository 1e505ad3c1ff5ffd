package server

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/tools/acls"
	"github.com/zkafka/zkafka/zk/zktest"
)

// authzCodes is what one non-super user gets for each request kind.
type authzCodes struct {
	metadata, produce, fetch, coordinator, join, describeGroup, commit, offsetFetch, listGroups, createTopics, deleteTopics sarama.KError
}

// TestKafkaServerAuthorizer runs a broker with SimpleAclAuthorizer (authorizer.class.name),
// super.users=User:admin;User:ANONYMOUS (the brokers' own PLAINTEXT listener) and a SASL/PLAIN
// listener for admin and alice. alice, with no ACLs, gets 0.10.2's answers for metadata,
// produce, fetch, group and admin requests; kafka-acls --add (Describe, then --producer
// --consumer) opens them step by step within the cache refresh, and kafka-acls --remove closes
// them again. sarama reads the error codes off the wire; kafka-python sees
// TopicAuthorizationFailedError.
func TestKafkaServerAuthorizer(t *testing.T) {
	connect := zktest.Chroot(t)
	loggers, _ := testLoggers(t)
	jaas := filepath.Join(t.TempDir(), "jaas.conf")
	if err := os.WriteFile(jaas, []byte(saslJaas), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := brokerConfig(t, connect, t.TempDir(), map[string]string{
		"listeners":                    "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
		"sasl.enabled.mechanisms":      "PLAIN",
		"zkafka.jaas.config.file":      jaas,
		"authorizer.class.name":        "kafka.security.auth.SimpleAclAuthorizer",
		"super.users":                  "User:admin;User:ANONYMOUS",
		"offsets.topic.num.partitions": "1", "offsets.topic.replication.factor": "1",
	})
	srv := NewKafkaServer(cfg, nil, loggers, func(string) string { return "" })
	if err := srv.Startup(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	const topic, group = "secure", "g"
	if err := admin.NewAdminUtils(srv.ZkUtils(), nil, nil).CreateTopic(topic, 1, 1, nil, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", srv.BoundPort("SASL_PLAINTEXT"))
	open := func(user, pass string) *sarama.Broker {
		b := sarama.NewBroker(addr)
		if err := b.Open(saslConfig("PLAIN", user, pass)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	adminB := open("admin", "admin-secret")
	zktest.WaitUntilTrue(t, func() bool {
		md, err := adminB.GetMetadata(&sarama.MetadataRequest{Version: 1, Topics: []string{topic}})
		return err == nil && len(md.Topics) == 1 && md.Topics[0].Err == sarama.ErrNoError
	}, "the super user sees the topic", 20*time.Second)
	zktest.WaitUntilTrue(t, func() bool { // creates __consumer_offsets as the super user
		r, err := adminB.FindCoordinator(&sarama.FindCoordinatorRequest{CoordinatorKey: group})
		return err == nil && r.Err == sarama.ErrNoError
	}, "the group coordinator", 30*time.Second)
	alice := open("alice", "alice-secret")

	codes := func() authzCodes {
		var c authzCodes
		md, err := alice.GetMetadata(&sarama.MetadataRequest{Version: 1, Topics: []string{topic}})
		if err != nil {
			t.Fatal(err)
		}
		c.metadata = md.Topics[0].Err
		preq := &sarama.ProduceRequest{Version: 2, RequiredAcks: sarama.WaitForLocal, Timeout: 10_000}
		preq.AddMessage(topic, 0, &sarama.Message{Version: 1, Value: []byte("v"), Timestamp: time.Now()})
		pr, err := alice.Produce(preq)
		if err != nil {
			t.Fatal(err)
		}
		c.produce = pr.GetBlock(topic, 0).Err
		freq := &sarama.FetchRequest{Version: 3, MaxWaitTime: 10, MinBytes: 1, MaxBytes: 1 << 20}
		freq.AddBlock(topic, 0, 0, 1<<20, -1)
		fr, err := alice.Fetch(freq)
		if err != nil {
			t.Fatal(err)
		}
		c.fetch = fr.GetBlock(topic, 0).Err
		cr, err := alice.FindCoordinator(&sarama.FindCoordinatorRequest{CoordinatorKey: group})
		if err != nil {
			t.Fatal(err)
		}
		c.coordinator = cr.Err
		jreq := &sarama.JoinGroupRequest{GroupId: group, SessionTimeout: 10_000, ProtocolType: "consumer"}
		jreq.AddGroupProtocol("range", []byte{0, 0, 0, 0, 0, 0, 0, 0})
		jr, err := alice.JoinGroup(jreq)
		if err != nil {
			t.Fatal(err)
		}
		c.join = jr.Err
		if c.join == sarama.ErrNoError { // leave again, so the next round starts from an empty group
			alice.LeaveGroup(&sarama.LeaveGroupRequest{GroupId: group, MemberId: jr.MemberId})
		}
		dg, err := alice.DescribeGroups(&sarama.DescribeGroupsRequest{Groups: []string{group}})
		if err != nil {
			t.Fatal(err)
		}
		c.describeGroup = dg.Groups[0].Err
		ocr := &sarama.OffsetCommitRequest{Version: 0, ConsumerGroup: group}
		ocr.AddBlock(topic, 0, 1, 0, "")
		oc, err := alice.CommitOffset(ocr)
		if err != nil {
			t.Fatal(err)
		}
		c.commit = oc.Errors[topic][0]
		ofr := &sarama.OffsetFetchRequest{Version: 1, ConsumerGroup: group}
		ofr.AddPartition(topic, 0)
		of, err := alice.FetchOffset(ofr)
		if err != nil {
			t.Fatal(err)
		}
		c.offsetFetch = of.Err
		if b := of.GetBlock(topic, 0); of.Err == sarama.ErrNoError && b != nil {
			c.offsetFetch = b.Err
		}
		lr, err := alice.ListGroups(&sarama.ListGroupsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		c.listGroups = lr.Err
		ctr, err := alice.CreateTopics(&sarama.CreateTopicsRequest{TopicDetails: map[string]*sarama.TopicDetail{
			"alice-new": {NumPartitions: 1, ReplicationFactor: 1}}, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		c.createTopics = ctr.TopicErrors["alice-new"].Err
		dtr, err := alice.DeleteTopics(&sarama.DeleteTopicsRequest{Topics: []string{topic}, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		c.deleteTopics = dtr.TopicErrorCodes[topic]
		return c
	}
	expect := func(what string, want authzCodes) {
		t.Helper()
		var got authzCodes
		if !zktest.PollUntil(func() bool { got = codes(); return got == want }, 20*time.Second) {
			t.Fatalf("%s:\n got  %+v\n want %+v", what, got, want)
		}
		t.Logf("%s: %+v", what, got)
	}
	kafkaACLs := func(args ...string) {
		t.Helper()
		var out, errOut bytes.Buffer
		if rc := acls.Run(context.Background(), append([]string{"--authorizer-properties", "zookeeper.connect=" + connect, "--force"}, args...), &out, &errOut); rc != 0 {
			t.Fatalf("kafka-acls %v: %d\n%s%s", args, rc, out.String(), errOut.String())
		}
	}

	// No ACLs: existence is not disclosed; the group and cluster answers name the resource.
	expect("no ACLs", authzCodes{
		metadata: sarama.ErrUnknownTopicOrPartition, produce: sarama.ErrUnknownTopicOrPartition, fetch: sarama.ErrUnknownTopicOrPartition,
		coordinator: sarama.ErrGroupAuthorizationFailed, join: sarama.ErrGroupAuthorizationFailed, describeGroup: sarama.ErrGroupAuthorizationFailed, commit: sarama.ErrGroupAuthorizationFailed, offsetFetch: sarama.ErrGroupAuthorizationFailed, listGroups: sarama.ErrClusterAuthorizationFailed,
		createTopics: sarama.ErrClusterAuthorizationFailed, deleteTopics: sarama.ErrUnknownTopicOrPartition,
	})

	// Describe only: the topic shows, writing and reading it are refused.
	kafkaACLs("--add", "--allow-principal", "User:alice", "--operation", "Describe", "--topic", topic)
	describeOnly := authzCodes{
		metadata: sarama.ErrNoError, produce: sarama.ErrTopicAuthorizationFailed, fetch: sarama.ErrTopicAuthorizationFailed,
		coordinator: sarama.ErrGroupAuthorizationFailed, join: sarama.ErrGroupAuthorizationFailed, describeGroup: sarama.ErrGroupAuthorizationFailed, commit: sarama.ErrGroupAuthorizationFailed, offsetFetch: sarama.ErrGroupAuthorizationFailed, listGroups: sarama.ErrClusterAuthorizationFailed,
		createTopics: sarama.ErrClusterAuthorizationFailed, deleteTopics: sarama.ErrTopicAuthorizationFailed,
	}
	expect("Describe on the topic", describeOnly)
	if exec.Command("/usr/bin/python3", "-c", "import kafka").Run() == nil {
		out, err := exec.Command("/usr/bin/python3", "-c", kafkaPythonAuthzScript, addr, topic).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "TopicAuthorizationFailedError") {
			t.Fatalf("kafka-python: %v\n%s", err, out)
		}
	} else {
		t.Log("kafka-python not installed: its half is skipped")
	}

	// --producer --consumer: produce, fetch and the group work; the cluster stays closed but for Create.
	kafkaACLs("--add", "--allow-principal", "User:alice", "--producer", "--consumer", "--topic", topic, "--group", group)
	expect("--producer --consumer", authzCodes{
		metadata: sarama.ErrNoError, produce: sarama.ErrNoError, fetch: sarama.ErrNoError,
		coordinator: sarama.ErrNoError, join: sarama.ErrNoError, describeGroup: sarama.ErrNoError, commit: sarama.ErrNoError, offsetFetch: sarama.ErrNoError, listGroups: sarama.ErrClusterAuthorizationFailed,
		createTopics: sarama.ErrNoError, deleteTopics: sarama.ErrTopicAuthorizationFailed,
	})

	// --remove takes it all away again.
	kafkaACLs("--remove", "--topic", topic, "--group", group, "--cluster")
	expect("after --remove", authzCodes{
		metadata: sarama.ErrUnknownTopicOrPartition, produce: sarama.ErrUnknownTopicOrPartition, fetch: sarama.ErrUnknownTopicOrPartition,
		coordinator: sarama.ErrGroupAuthorizationFailed, join: sarama.ErrGroupAuthorizationFailed, describeGroup: sarama.ErrGroupAuthorizationFailed, commit: sarama.ErrGroupAuthorizationFailed, offsetFetch: sarama.ErrGroupAuthorizationFailed, listGroups: sarama.ErrClusterAuthorizationFailed,
		createTopics: sarama.ErrClusterAuthorizationFailed, deleteTopics: sarama.ErrUnknownTopicOrPartition,
	})
}

const kafkaPythonAuthzScript = `
import sys
from kafka import KafkaProducer
from kafka.errors import TopicAuthorizationFailedError
addr, topic = sys.argv[1:3]
p = KafkaProducer(bootstrap_servers=addr, security_protocol='SASL_PLAINTEXT', sasl_mechanism='PLAIN',
                  sasl_plain_username='alice', sasl_plain_password='alice-secret', api_version=(0, 10, 2), retries=0)
try:
    p.send(topic, b'x').get(timeout=30)
    print('sent')
except TopicAuthorizationFailedError as e:
    print('TopicAuthorizationFailedError', e)
p.close()
`
