package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestAdminToolUsageErrors runs the issue 7 tools (and broker-api-versions,
// GetOffsetShell) through the binary's entry
// point: each usage error prints Kafka's message first on stderr and exits
// with Kafka's code (CommandLineUtils.printUsageAndDie), without touching ZooKeeper.
func TestAdminToolUsageErrors(t *testing.T) {
	cases := []struct {
		args  []string
		first string
		code  int
	}{
		{[]string{"topics"}, "Create, delete, describe, or change a topic.", 1},
		{[]string{"topics", "--list"}, `Missing required argument "[zookeeper]"`, 1},
		{[]string{"topics", "--describe", "--zookeeper", "x", "--config", "a=b"}, `Option "[config]" can't be used with option"[describe]"`, 1},
		{[]string{"topics", "--zookeeper", "x", "--list", "--nope"}, `Exception in thread "main" joptsimple.UnrecognizedOptionException: nope is not a recognized option`, 1},
		{[]string{"reassign-partitions"}, "This command moves topic partitions between replicas.", 1},
		{[]string{"reassign-partitions", "--zookeeper", "x", "--generate", "--execute"}, "Command must include exactly one action: --generate, --execute or --verify", 1},
		{[]string{"preferred-replica-election"}, "This tool causes leadership for each partition to be transferred back to the 'preferred replica', it can be used to balance leadership among the servers.", 1},
		{[]string{"preferred-replica-election", "--path-to-json-file", "f"}, `Missing required argument "[zookeeper]"`, 1},
		{[]string{"configs"}, "Add/Remove entity config for a topic, client, user or broker", 1},
		{[]string{"configs", "--zookeeper", "x", "--describe", "--entity-type", "foo"}, `Exception in thread "main" java.lang.IllegalArgumentException: Invalid entity-type foo, --entity-type must be one of List(topics, clients, users, brokers)`, 1},
		{[]string{"run-class", "kafka.admin.TopicCommand", "--list"}, `Missing required argument "[zookeeper]"`, 1},
		{[]string{"broker-api-versions"}, `Missing required argument "[bootstrap-server]"`, 1},
		{[]string{"run-class", "kafka.tools.GetOffsetShell"}, "An interactive shell for getting consumer offsets.", 1},
		{[]string{"run-class", "kafka.tools.GetOffsetShell", "--broker-list", "h", "--topic", "t"}, "Please provide valid host:port like host1:9091,host2:9092", 1},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		code := run(append([]string{"zkafka"}, c.args...), &out, &errOut)
		first, _, _ := strings.Cut(errOut.String(), "\n")
		if code != c.code || first != c.first {
			t.Errorf("zkafka %v: exit %d, stderr first line %q; want %d %q", c.args, code, first, c.code, c.first)
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"zkafka", "zookeeper-shell"}, &out, &errOut); code != 1 || out.String() != "USAGE: zookeeper-shell.sh zookeeper_host:port[/path] [args...]\n" {
		t.Errorf("zookeeper-shell without args: %d %q", code, out.String())
	}
}
