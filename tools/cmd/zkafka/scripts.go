package main

// Status says how far a Kafka script is implemented in zkafka.
type Status string

const (
	// Done: the subcommand works.
	Done Status = "done"
	// Later: planned, not built yet; the subcommand says so and exits 1.
	Later Status = "later"
	// OutOfScope: not part of zkafka (Connect, Streams, Windows scripts).
	OutOfScope Status = "out of scope"
)

// Script is one row of the script table: a Kafka 0.10.2 bin/ script, the zkafka subcommand that
// implements it, and the Kafka main class the script runs.
type Script struct {
	Name       string // e.g. kafka-topics.sh
	Subcommand string // e.g. topics
	MainClass  string // e.g. kafka.admin.TopicCommand
	Status     Status
	Issue      int // the issue that builds it, for Later rows
}

// scriptTable has one row per script in Kafka 0.10.2's bin/ (windows/ excluded).
// bin/*.sh wrappers are generated from it by `zkafka gen-scripts --out bin/`.
var scriptTable = []Script{
	{"connect-distributed.sh", "connect-distributed", "org.apache.kafka.connect.cli.ConnectDistributed", OutOfScope, 0},
	{"connect-standalone.sh", "connect-standalone", "org.apache.kafka.connect.cli.ConnectStandalone", OutOfScope, 0},
	{"kafka-acls.sh", "acls", "kafka.admin.AclCommand", Done, 17},
	{"kafka-broker-api-versions.sh", "broker-api-versions", "kafka.admin.BrokerApiVersionsCommand", Done, 7},
	{"kafka-configs.sh", "configs", "kafka.admin.ConfigCommand", Done, 7},
	{"kafka-console-consumer.sh", "console-consumer", "kafka.tools.ConsoleConsumer", Done, 16},
	{"kafka-console-producer.sh", "console-producer", "kafka.tools.ConsoleProducer", Done, 14},
	{"kafka-consumer-groups.sh", "consumer-groups", "kafka.admin.ConsumerGroupCommand", Done, 8},
	{"kafka-consumer-offset-checker.sh", "consumer-offset-checker", "kafka.tools.ConsumerOffsetChecker", Done, 16},
	{"kafka-consumer-perf-test.sh", "consumer-perf-test", "kafka.tools.ConsumerPerformance", Done, 16},
	{"kafka-mirror-maker.sh", "mirror-maker", "kafka.tools.MirrorMaker", Done, 16},
	{"kafka-preferred-replica-election.sh", "preferred-replica-election", "kafka.admin.PreferredReplicaLeaderElectionCommand", Done, 7},
	{"kafka-producer-perf-test.sh", "producer-perf-test", "org.apache.kafka.tools.ProducerPerformance", Done, 14},
	{"kafka-reassign-partitions.sh", "reassign-partitions", "kafka.admin.ReassignPartitionsCommand", Done, 7},
	{"kafka-replay-log-producer.sh", "replay-log-producer", "kafka.tools.ReplayLogProducer", Done, 16},
	{"kafka-replica-verification.sh", "replica-verification", "kafka.tools.ReplicaVerificationTool", Done, 16},
	{"kafka-run-class.sh", "run-class", "", Done, 0},
	{"kafka-server-start.sh", "server-start", "kafka.Kafka", Done, 5},
	{"kafka-server-stop.sh", "server-stop", "", Done, 7},
	{"kafka-simple-consumer-shell.sh", "simple-consumer-shell", "kafka.tools.SimpleConsumerShell", Done, 16},
	{"kafka-streams-application-reset.sh", "streams-application-reset", "kafka.tools.StreamsResetter", OutOfScope, 0},
	{"kafka-topics.sh", "topics", "kafka.admin.TopicCommand", Done, 7},
	{"kafka-verifiable-consumer.sh", "verifiable-consumer", "org.apache.kafka.tools.VerifiableConsumer", Done, 15},
	{"kafka-verifiable-producer.sh", "verifiable-producer", "org.apache.kafka.tools.VerifiableProducer", Done, 14},
	{"zookeeper-security-migration.sh", "zookeeper-security-migration", "kafka.admin.ZkSecurityMigrator", Done, 17},
	{"zookeeper-server-start.sh", "zookeeper-server-start", "org.apache.zookeeper.server.quorum.QuorumPeerMain", Done, 2},
	{"zookeeper-server-stop.sh", "zookeeper-server-stop", "", Done, 2},
	{"zookeeper-shell.sh", "zookeeper-shell", "org.apache.zookeeper.ZooKeeperMain", Done, 2},
	// Not a script in Kafka's bin/: DumpLogSegments is reached through kafka-run-class.sh; zkafka
	// also offers it as a script of its own for convenience.
	{"kafka-dump-log-segments.sh", "dump-log-segments", "kafka.tools.DumpLogSegments", Done, 4},
	// Not a script in Kafka's bin/ either: GetOffsetShell is run through kafka-run-class.sh.
	{"kafka-get-offset-shell.sh", "get-offset-shell", "kafka.tools.GetOffsetShell", Done, 7},
}

// kafka0102BinScripts is the frozen list of Kafka 0.10.2's bin/*.sh (from `git ls-tree 0.10.2:bin/`),
// so a test can check that every one of them has a row in scriptTable.
var kafka0102BinScripts = []string{
	"connect-distributed.sh", "connect-standalone.sh", "kafka-acls.sh", "kafka-broker-api-versions.sh",
	"kafka-configs.sh", "kafka-console-consumer.sh", "kafka-console-producer.sh", "kafka-consumer-groups.sh",
	"kafka-consumer-offset-checker.sh", "kafka-consumer-perf-test.sh", "kafka-mirror-maker.sh",
	"kafka-preferred-replica-election.sh", "kafka-producer-perf-test.sh", "kafka-reassign-partitions.sh",
	"kafka-replay-log-producer.sh", "kafka-replica-verification.sh", "kafka-run-class.sh",
	"kafka-server-start.sh", "kafka-server-stop.sh", "kafka-simple-consumer-shell.sh",
	"kafka-streams-application-reset.sh", "kafka-topics.sh", "kafka-verifiable-consumer.sh",
	"kafka-verifiable-producer.sh", "zookeeper-security-migration.sh", "zookeeper-server-start.sh",
	"zookeeper-server-stop.sh", "zookeeper-shell.sh",
}

// wrapperScript is the text of one bin/ wrapper: exec the zkafka binary beside it, else the one on PATH.
func wrapperScript(s Script) string {
	return "#!/bin/sh\n" +
		"# " + s.Name + ": generated by `zkafka gen-scripts`; runs `zkafka " + s.Subcommand + "`.\n" +
		"d=$(dirname \"$0\"); if [ -x \"$d/zkafka\" ]; then exec \"$d/zkafka\" " + s.Subcommand + " \"$@\"; fi\n" +
		"exec zkafka " + s.Subcommand + " \"$@\"\n"
}
