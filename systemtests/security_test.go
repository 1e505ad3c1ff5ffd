package systemtests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Issue 17 acceptance, as an operator sets security up with Kafka 0.10.2's scripts: the JAAS file
// named by -Djava.security.auth.login.config in KAFKA_OPTS (which kafka-server-start.sh passes
// on), a SASL_PLAINTEXT listener with PLAIN and SCRAM-SHA-256, a SCRAM user created with
// kafka-configs.sh, SimpleAclAuthorizer with ACLs given by kafka-acls.sh. kcat (librdkafka) is
// refused with a wrong password and before the ACL, and produces and consumes after it.
func TestSecurityWithScripts(t *testing.T) {
	if suite.skip != "" {
		t.Skip(suite.skip)
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("java not found (ZooKeeper)")
	}
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat not installed")
	}
	ctx := within(t, 4*time.Minute)
	s := scripts{t: t, dir: scriptsDir(t)}
	work := filepath.Dir(s.dir)
	zkPort, _ := FreePort()
	plainPort, _ := FreePort()
	saslPort, _ := FreePort()
	zk := fmt.Sprintf("localhost:%d", zkPort)
	s.zk = zk
	sasl := fmt.Sprintf("127.0.0.1:%d", saslPort)

	zkProps := configFrom(t, work, "zookeeper.properties", map[string]string{"dataDir": filepath.Join(work, "zookeeper"), "clientPort": fmt.Sprint(zkPort)})
	scriptProcess(t, s, filepath.Join(work, "zookeeper.out"), "zookeeper-server-start.sh", zkProps)
	if err := waitListening(ctx, zk); err != nil {
		t.Fatal(err)
	}
	jaas := s.file("kafka_server_jaas.conf", `KafkaServer {
   org.apache.kafka.common.security.plain.PlainLoginModule required
   username="admin"
   password="admin-secret"
   user_admin="admin-secret"
   user_alice="alice-secret";
};
`)
	t.Setenv("KAFKA_OPTS", "-Djava.security.auth.login.config="+jaas)
	serverProps := configFrom(t, work, "server.properties", map[string]string{"log.dirs": filepath.Join(work, "kafka-logs"),
		"zookeeper.connect": zk, "listeners": fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,SASL_PLAINTEXT://%s", plainPort, sasl),
		"sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256", "authorizer.class.name": "kafka.security.auth.SimpleAclAuthorizer",
		"super.users": "User:admin;User:ANONYMOUS", "offsets.topic.replication.factor": "1"})
	kafkaOut := filepath.Join(work, "kafka.out")
	scriptProcess(t, s, kafkaOut, "kafka-server-start.sh", serverProps)
	started := regexp.MustCompile(`\[Kafka Server 0\], started`)
	if err := WaitFor(ctx, func() string { return "the broker did not log that it started" }, func() bool {
		data, _ := os.ReadFile(kafkaOut)
		return started.Match(data)
	}); err != nil {
		t.Fatal(err)
	}
	s.run(ctx, "kafka-topics.sh", "--create", "--zookeeper", zk, "--replication-factor", "1", "--partitions", "1", "--topic", "secured")
	out := s.run(ctx, "kafka-configs.sh", "--zookeeper", zk, "--alter", "--add-config", "SCRAM-SHA-256=[iterations=8192,password=bob-secret]",
		"--entity-type", "users", "--entity-name", "bob")
	if !strings.Contains(out, "Completed Updating config for entity: user-principal 'bob'.") {
		t.Fatalf("kafka-configs.sh printed %q", out)
	}

	kcatRun := func(stdin string, args ...string) (string, error) {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(cctx, kcat, append([]string{"-b", sasl, "-X", "security.protocol=SASL_PLAINTEXT"}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		err := cmd.Run()
		return b.String(), err
	}
	bob := []string{"-X", "sasl.mechanisms=SCRAM-SHA-256", "-X", "sasl.username=bob", "-X", "sasl.password=bob-secret"}
	produce := func(creds []string, v string) (string, error) {
		return kcatRun(v+"\n", append([]string{"-P", "-t", "secured", "-X", "message.timeout.ms=5000"}, creds...)...)
	}
	if out, err := produce([]string{"-X", "sasl.mechanisms=SCRAM-SHA-256", "-X", "sasl.username=bob", "-X", "sasl.password=wrong"}, "x"); err == nil {
		t.Fatalf("kcat with a wrong password produced:\n%s", out)
	}
	if err := WaitFor(ctx, func() string { return "the broker did not log the failed authentication" }, func() bool {
		data, _ := os.ReadFile(kafkaOut)
		return bytes.Contains(data, []byte("Failed authentication with"))
	}); err != nil {
		t.Fatal(err)
	}
	if out, err := produce(bob, "before the ACL"); err == nil {
		t.Fatalf("bob produced without an ACL:\n%s", out)
	}
	aclCmd := exec.CommandContext(ctx, filepath.Join(s.dir, "kafka-acls.sh"), "--authorizer-properties", "zookeeper.connect="+zk, "--add",
		"--allow-principal", "User:bob", "--producer", "--topic", "secured")
	outb, err := aclCmd.CombinedOutput() // stdout and the tool's log on stderr
	if out = string(outb); err != nil {
		t.Fatalf("kafka-acls.sh: %v\n%s", err, out)
	}
	if !strings.Contains(out, "Current ACLs for resource `Topic:secured`: \n \tUser:bob has Allow permission for operations: Describe from hosts: *\n\tUser:bob has Allow permission for operations: Write from hosts: * \n") {
		t.Fatalf("kafka-acls.sh printed %q", out)
	}
	if strings.Contains(out, "ERROR") {
		t.Fatalf("kafka-acls.sh logged an error:\n%s", out)
	}
	if err := WaitFor(ctx, func() string { return "bob could not produce after kafka-acls --add" }, func() bool {
		_, err := produce(bob, "after the ACL")
		return err == nil
	}); err != nil {
		t.Fatal(err)
	}
	out, err = kcatRun("", "-C", "-t", "secured", "-o", "beginning", "-e", "-q", "-X", "sasl.mechanisms=PLAIN", "-X", "sasl.username=admin", "-X", "sasl.password=admin-secret")
	if err != nil || !strings.Contains(out, "after the ACL") || strings.Contains(out, "before the ACL") {
		t.Fatalf("admin consumed (%v):\n%s", err, out)
	}
}
