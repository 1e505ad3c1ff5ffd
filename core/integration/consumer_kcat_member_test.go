package integration

import (
	"bufio"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
)

// kcatMember is `kcat -G` (librdkafka's balanced consumer) in the group: stdout gives
// "partition offset" per record, stderr its rebalance notices (assigned / revoked partitions).
type kcatMember struct {
	mu       sync.Mutex
	assigned []int32
	records  []consumed
	cmd      *exec.Cmd
	done     chan struct{}
	stderr   strings.Builder
}

func kcatAvailable() bool { _, err := exec.LookPath("kcat"); return err == nil }

var kcatPartitionRe = regexp.MustCompile(`\[(\d+)\]`)

func startKcatMember(t *testing.T, addr, topic, group, strategy string) *kcatMember {
	t.Helper()
	m := &kcatMember{done: make(chan struct{})}
	m.cmd = exec.Command("kcat", "-b", addr, "-G", group, "-X", "partition.assignment.strategy="+strategy, "-X", "session.timeout.ms=6000",
		"-X", "heartbeat.interval.ms=500", "-X", "auto.offset.reset=earliest", "-X", "api.version.request=true", "-f", "%p %o\n", "-u", topic)
	out, err := m.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errPipe, err := m.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			line := sc.Text()
			m.mu.Lock()
			m.stderr.WriteString(line + "\n")
			switch {
			case strings.Contains(line, "rebalanced") && strings.Contains(line, "assigned"):
				m.assigned = nil
				for _, g := range kcatPartitionRe.FindAllStringSubmatch(line, -1) {
					p, _ := strconv.Atoi(g[1])
					m.assigned = append(m.assigned, int32(p))
				}
			case strings.Contains(line, "rebalanced") && strings.Contains(line, "revoked"):
				m.assigned = nil
			}
			m.mu.Unlock()
		}
	}()
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var p int32
			var o int64
			f := strings.Fields(sc.Text())
			if len(f) != 2 {
				continue
			}
			pi, _ := strconv.Atoi(f[0])
			o, _ = strconv.ParseInt(f[1], 10, 64)
			p = int32(pi)
			m.mu.Lock()
			m.records = append(m.records, consumed{"kcat", common.TopicPartition{Topic: topic, Partition: p}, o})
			m.mu.Unlock()
		}
	}()
	go func() { wg.Wait(); _ = m.cmd.Wait(); close(m.done) }()
	t.Cleanup(func() {
		m.stop()
		if t.Failed() {
			t.Logf("kcat stderr:\n%s", m.stderr.String())
		}
	})
	return m
}

// stop sends SIGTERM (kcat commits and leaves the group) and waits.
func (m *kcatMember) stop() {
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(20 * time.Second):
		_ = m.cmd.Process.Kill()
		<-m.done
	}
}

func (m *kcatMember) snapshot() ([]int32, []consumed) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]int32(nil), m.assigned...), append([]consumed(nil), m.records...)
}
