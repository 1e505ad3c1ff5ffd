package systemtests

import (
	"os"
	"regexp"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

var haltLine = regexp.MustCompile(`Halting due to unrecoverable I/O error while handling produce request`)

// Issue 11 acceptance, storage: the leader's log dir is a small tmpfs. When it fills under an
// acks=all load, the leader halts (0.10.2's appendToLocalLog on a KafkaStorageException), its
// registration goes with its session, the controller elects an in-sync replica, and the
// producer goes on. With the space freed, the broker restarts, recovers its log (no clean
// shutdown marker: the torn tail of the failed write is cut) and rejoins the ISR; every
// acknowledged message is there.
func TestLeaderWithAFullDiskHandsOver(t *testing.T) {
	c := controllerCluster(t, nil)
	requireReplication(t, c)
	ctx := within(t, 4*time.Minute)
	victim := c.Brokers[0]
	// Move the victim's log dir onto an 8 MiB tmpfs (its files now are only meta.properties
	// and the lock; the broker recreates them).
	if err := victim.Stop(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	dir := victim.LogDirs[0]
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=8m"); err != nil {
		t.Skipf("cannot mount a tmpfs on %s: %v", dir, err)
	}
	t.Cleanup(func() {
		_ = victim.Kill()
		_ = unix.Unmount(dir, unix.MNT_DETACH)
	})
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitRegistered(ctx, victim); err != nil {
		t.Fatal(err)
	}

	const topic = "full-disk"
	assignment := map[int32][]int32{0: {victim.ID, 1, 2}}
	if err := c.CreateTopic(ctx, topic, assignment); err != nil {
		t.Fatal(err)
	}
	checker := NewChecker()
	load, err := StartLoad(c.BootstrapServers(), LoadSpec{Topic: topic, Partitions: 1, Size: 1024, Rate: 2000}, checker)
	if err != nil {
		t.Fatal(err)
	}
	defer load.Stop()

	// The disk fills; the leader halts.
	select {
	case <-victim.Exited():
	case <-time.After(60 * time.Second):
		t.Fatalf("broker %d still running with a full disk (acked %d)", victim.ID, load.Acked())
	}
	halted := time.Now()
	if code := victim.ExitCode(); code != 1 {
		t.Errorf("broker %d exited with %d, want 1 (halt)", victim.ID, code)
	}
	if victim.Logs().Matches(haltLine) == nil {
		t.Errorf("broker %d did not log %q:\n%s", victim.ID, haltLine, victim.Logs().Tail(20))
	}
	ackedAtHalt := load.Acked()
	var newLeader int32
	if err := WaitFor(within(t, sessionTimeout+20*time.Second), func() string { return "leadership still on the halted broker" }, func() bool {
		s, ok, err := c.PartitionState(topic, 0)
		newLeader = s.LeaderAndIsr.Leader
		return err == nil && ok && newLeader >= 0 && newLeader != victim.ID
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("broker %d halted after %d acks; broker %d leads %v later (session timeout %v)", victim.ID, ackedAtHalt,
		newLeader, time.Since(halted).Round(time.Millisecond), sessionTimeout)
	if err := load.WaitAcked(within(t, 60*time.Second), 2000); err != nil {
		t.Fatalf("acks=all writes did not go on under the new leader: %v", err)
	}

	// Free space and restart: the log is recovered and the broker catches up.
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_REMOUNT, "size=256m"); err != nil {
		t.Fatal(err)
	}
	mark := victim.Logs().Mark()
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitPartitions(within(t, 90*time.Second), topic, 1, FullIsr(assignment)); err != nil {
		t.Fatal(err)
	}
	if victim.Logs().MatchesFrom(mark, regexp.MustCompile(`[Rr]ecover`)) == nil {
		t.Errorf("broker %d restarted without recovering its log:\n%s", victim.ID, victim.Logs().Tail(30))
	}
	sent, acked, errs := load.Stop()
	if len(errs) > 0 {
		t.Errorf("%d sends failed after retries, first: %v", len(errs), errs[0])
	}
	if _, err := c.ConsumeAll(ctx, topic, 1, checker); err != nil {
		t.Fatal(err)
	}
	rep := checker.Check()
	t.Logf("sent %d acked %d; %v", sent, acked, rep)
	if !rep.OK() {
		t.Fatal(rep)
	}
	// The restarted replica holds exactly the leader's log.
	z, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := z.GetLeaderIsrAndEpochForPartition(topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !containsInt32(s.LeaderAndIsr.Isr, victim.ID) {
		t.Errorf("ISR %v without the restarted broker", s.LeaderAndIsr.Isr)
	}
}
