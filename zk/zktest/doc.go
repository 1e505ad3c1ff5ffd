// Package zktest is test glue for packages that need a real ZooKeeper: one
// shared ensemble per test binary (TestMain), a fresh chroot per test, and
// connection helpers that clean up after themselves.
//
// Kafka 0.10.2: kafka.zk.ZooKeeperTestHarness (core/src/test/scala/unit/kafka/zk).
// Kafka's harness starts an EmbeddedZookeeper per test; a JVM per test would
// cost seconds here, so zktest starts one ensemble per package and isolates
// tests by chroot instead.
//
// Usage:
//
//	func TestMain(m *testing.M) { os.Exit(zktest.Main(m, 3)) }
//
//	func TestX(t *testing.T) {
//		connect := zktest.Chroot(t) // "127.0.0.1:p1,.../t-TestX-1", not yet created
//		capture := zktest.NewSessionCapture()
//		c := newClient(connect, zkclient.WithDialer(capture.Dial))
//		...
//		zktest.ExpireSession(t, capture) // the client sees StateExpired, then a new session
//	}
//
// Conn gives a plain go-zookeeper connection (no chroot: go-zookeeper has
// none, so use absolute paths; SplitConnect separates the chroot).
//
// Environment:
//
//	ZK_CONNECT=host:port[,host:port]  reuse a running ZooKeeper; no JVM is started
//	ZKTEST_VERBOSE=1                  let go-zookeeper's logging through (stderr)
//
// Main also fails the run when goroutines leak (goleak.Find after m.Run).
//
// The shared ensemble and chroot counter are package state: TestMain has no
// other way to hand them to the tests, as in Kafka's harness fields.
package zktest
