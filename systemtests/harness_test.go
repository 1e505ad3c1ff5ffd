package systemtests

import (
	"regexp"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// The harness' process control, as issue 6's scenarios use it: a three-node ensemble owned by the
// cluster, a broker paused (SIGSTOP: connected but silent) and resumed, a ZooKeeper follower
// killed and restarted under a serving broker, and Logs().Expect on the broker's captured output.
func TestHarnessProcessControl(t *testing.T) {
	c := newCluster(t, ClusterConfig{Brokers: 1, ZooKeepers: 3})
	b := c.Brokers[0]
	ctx := within(t, 3*time.Minute)
	if _, err := b.Logs().Expect(regexp.MustCompile(`.`), 10*time.Second); err != nil {
		t.Fatalf("nothing captured from the broker: %v", err)
	}
	apiVersions := func(timeout time.Duration) error {
		w, err := DialWire(b.Addr(), "harness", timeout)
		if err != nil {
			return err
		}
		defer w.Close()
		_, err = w.Roundtrip(&protocol.ApiVersionsRequest{Version: 0})
		return err
	}
	if err := apiVersions(10 * time.Second); err != nil {
		t.Fatal(err)
	}

	if err := b.Pause(); err != nil {
		t.Fatal(err)
	}
	if err := apiVersions(time.Second); err == nil {
		t.Fatal("a paused broker answered")
	}
	if err := b.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := apiVersions(10 * time.Second); err != nil {
		t.Fatalf("after SIGCONT: %v", err)
	}

	leader, err := c.ZK.Leader()
	if err != nil {
		t.Fatal(err)
	}
	follower := (leader + 1) % c.ZK.Size()
	if err := c.ZK.Kill(follower); err != nil {
		t.Fatal(err)
	}
	z, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := z.PathExists(zkutils.BrokerIdPath(b.ID)); err != nil || !ok {
		t.Fatalf("registration with one ZooKeeper follower down: %v %v", ok, err)
	}
	if err := apiVersions(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.ZK.Restart(ctx, follower); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ZK.WaitForLeader(ctx); err != nil {
		t.Fatal(err)
	}

	if err := b.Stop(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	if b.Running() || b.ExitCode() != 0 {
		t.Fatalf("after Stop: running %v, exit code %d", b.Running(), b.ExitCode())
	}
	if err := c.WaitUnregistered(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
}
