// Package systemtests drives real zkafka broker processes (`zkafka server-start`) against a real
// ZooKeeper ensemble, as Kafka's own tests/kafkatest does with ducktape services: every broker is a
// child process with its own server.properties, data directory and captured log, and the tests
// reach it only through its port, its znodes, its files and its signals.
//
// Kafka 0.10.2: tests/kafkatest (services/kafka/kafka.py KafkaService, services/zookeeper.py,
// tests/core/replication_test.py) and kafka.utils.TestUtils' polling helpers; the harness is Go,
// not ducktape, and runs on one machine over loopback.
//
// Bookmap: 001 ch.5 (the command lines the books replay), 000 ch.6-7 and 001 §4.1-4.6 (the
// behaviour the scenarios check: registration, the data path, zero-copy fetch, shutdown and
// recovery).
//
// # Pieces
//
//   - BuildZkafka: `go build` of ./tools/cmd/zkafka into a temp dir, once per test binary.
//   - Cluster: a ZooKeeper ensemble (zk/ensemble, 1 or 3 nodes, or a shared one with a chroot per
//     cluster) and N BrokerProcess values on free loopback ports. Cluster.ZK is the ensemble, so
//     per-node faults are ZK.Kill/Stop/Pause/Resume/Restart(i) and ZK.ExpireSession; Cluster.Zk()
//     is a zkutils.ZkUtils rooted at the cluster's chroot.
//   - BrokerProcess: Start, Stop (SIGTERM, then wait), Kill (SIGKILL), Pause/Resume (SIGSTOP and
//     SIGCONT to the whole process group), Restart, PID, CPUTime (/proc/<pid>/stat), and Logs(),
//     a LogCapture whose Expect polls the captured stdout+stderr for a regexp.
//   - Cluster.CreateTopic writes /brokers/topics/T the way 0.10.2's AdminUtils does and waits
//     until the brokers' own KafkaController has elected every partition's leader with a full
//     ISR and the brokers serve it; PartitionState, ControllerInfo, WaitPartitions and LeaderOf
//     read what the controller wrote. LoadProducer keeps an acks=all sarama producer running
//     while brokers fail (controller_ops.go).
//   - Checker: the acked-versus-consumed comparison of kafkatest's
//     ProduceConsumeValidateTest.validate: every acknowledged message at its acknowledged offset,
//     no gaps below the high watermark, nothing consumed that was never sent, duplicates counted.
//   - WireConn: one blocking Kafka connection (request, then response) over the clients'
//     NetworkClient and NetworkClientBlockingOps, used by the ListOffsets checks and the
//     bad-client test.
//   - Network (netns.go): network namespaces joined by a router namespace, one per broker and
//     ZooKeeper node, so that partition_test.go can cut links for real (docs/network-partitions.md).
//     Needs root and iproute2; the tests skip without them.
//   - TestDockerCompose: docker/docker-compose.yml end to end (`make docker-test`, which sets
//     ZKAFKA_DOCKER_TEST=1 after building the images; docs/docker.md).
//
// # Test sets
//
// `make test` runs the short set (plain `go test ./systemtests/`). Long scenarios (the full
// codec × client matrix at 1,000,000 messages) run when ZKAFKA_LONG=1 (`make systemtest`).
// Every test skips when java or the
// ZooKeeper jars are missing; the strace test skips when strace is absent.
//
// Environment:
//
//	ZKAFKA_LONG=1          the whole matrix and the long scenarios
//	ZKAFKA_BIN=path        use this zkafka binary instead of building one
//	SYSTEMTESTS_KEEP=1     keep the test directories (configs, data, logs) after the run
//	ZKAFKA_DOCKER_TEST=1   run TestDockerCompose (COMPOSE names the Compose command)
//
// Every process a test starts is killed in t.Cleanup, also when the test fails.
package systemtests
