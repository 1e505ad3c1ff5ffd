package ensemble

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// vmRSS reads VmRSS (KiB) from /proc/<pid>/status.
func vmRSS(t *testing.T, pid int) int {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Fatalf("no VmRSS for pid %d", pid)
	return 0
}

func modes(e *Ensemble) []string {
	out := make([]string, e.Size())
	for i := range out {
		m, err := e.Mode(i)
		if err != nil {
			m = "down"
		}
		out[i] = m
	}
	return out
}

// TestQuorum runs the fault operations on one 3-server ensemble, in order:
// start (timed), RSS, Kill(leader) and re-election, Restart, Pause/Resume
// of a follower and of the leader.
func TestQuorum(t *testing.T) {
	begin := time.Now()
	e, err := Start(testContext(t, 120*time.Second), Config{Servers: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	elapsed := time.Since(begin)
	t.Logf("3-node ensemble start: %v (goal < 3s); connect %s", elapsed, e.ConnectString())

	parts := strings.Split(e.ConnectString(), ",")
	if len(parts) != 3 || e.Size() != 3 {
		t.Fatalf("ConnectString %q, Size %d", e.ConnectString(), e.Size())
	}
	for i, p := range parts {
		if p != e.Addr(i) || !strings.HasPrefix(p, "127.0.0.1:") {
			t.Fatalf("part %d = %q, Addr = %q", i, p, e.Addr(i))
		}
	}
	leaders, followers := 0, 0
	for _, m := range modes(e) {
		switch m {
		case ModeLeader:
			leaders++
		case ModeFollower:
			followers++
		}
	}
	if leaders != 1 || followers != 2 {
		t.Fatalf("modes after Start = %v", modes(e))
	}
	for i := 0; i < 3; i++ {
		t.Logf("node %d (%s): VmRSS %d KiB (goal < 128 MiB)", i, modes(e)[i], vmRSS(t, e.PID(i)))
	}

	t.Run("KillLeaderReelects", func(t *testing.T) {
		old, err := e.Leader()
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Kill(old); err != nil {
			t.Fatal(err)
		}
		if e.PID(old) != 0 {
			t.Fatal("PID != 0 after Kill")
		}
		begin := time.Now()
		nl, err := e.WaitForLeader(testContext(t, 60*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("new leader %d elected %v after killing %d; modes %v", nl, time.Since(begin), old, modes(e))
		if nl == old {
			t.Fatalf("killed node %d still leads", old)
		}
		begin = time.Now()
		if err := e.Restart(testContext(t, 60*time.Second), old); err != nil {
			t.Fatal(err)
		}
		t.Logf("restart of node %d serving after %v", old, time.Since(begin))
		if m, err := e.Mode(old); err != nil || m != ModeFollower {
			t.Fatalf("restarted node mode = %q, %v; want follower", m, err)
		}
	})

	t.Run("PauseFollower", func(t *testing.T) {
		l, err := e.Leader()
		if err != nil {
			t.Fatal(err)
		}
		f := (l + 1) % 3
		if err := e.Pause(f); err != nil {
			t.Fatal(err)
		}
		defer e.Resume(f) // on failure too, so later subtests keep a quorum
		if _, err := e.Mode(f); err == nil {
			t.Fatal("paused node answered srvr")
		}
		if m, err := e.Mode(l); err != nil || m != ModeLeader {
			t.Fatalf("leader mode while a follower is paused = %q, %v", m, err)
		}
		if err := e.Resume(f); err != nil {
			t.Fatal(err)
		}
		if _, err := e.WaitServing(testContext(t, 30*time.Second), f); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("PauseLeaderReelects", func(t *testing.T) {
		old, err := e.Leader()
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Pause(old); err != nil {
			t.Fatal(err)
		}
		defer e.Resume(old)
		nl, err := e.WaitForLeader(testContext(t, 60*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if nl == old {
			t.Fatalf("paused node %d still reported as leader", old)
		}
		if err := e.Resume(old); err != nil {
			t.Fatal(err)
		}
		// The resumed node finds it lost the quorum and rejoins as follower.
		ctx := testContext(t, 60*time.Second)
		for {
			if m, err := e.Mode(old); err == nil && m == ModeFollower {
				break
			}
			if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
				t.Fatalf("resumed old leader never became follower: modes %v", modes(e))
			}
		}
		t.Logf("after pause/resume of leader %d: modes %v", old, modes(e))
	})

	t.Run("ExpireSession", func(t *testing.T) {
		checkExpireSession(t, e, "/eph-quorum")
	})

	t.Run("StopFollower", func(t *testing.T) {
		l, err := e.Leader()
		if err != nil {
			t.Fatal(err)
		}
		f := (l + 2) % 3
		if err := e.Stop(f); err != nil {
			t.Fatal(err)
		}
		if e.PID(f) != 0 {
			t.Fatal("PID != 0 after Stop")
		}
		if _, err := e.WaitForLeader(testContext(t, 30*time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := e.Restart(testContext(t, 60*time.Second), f); err != nil {
			t.Fatal(err)
		}
	})
}
