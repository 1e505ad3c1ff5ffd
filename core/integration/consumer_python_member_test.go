package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
)

// pythonGroupMember is a kafka-python KafkaConsumer in the group: it prints its assignment when
// it changes and every record it consumes with the assignment it held, commits after each poll,
// and stops when the stop file appears.
const pythonGroupMember = `
import sys, json, os
from kafka import KafkaConsumer
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
addr, topic, group, strategy, stopfile = sys.argv[1:6]
a = RangePartitionAssignor if strategy == 'range' else RoundRobinPartitionAssignor
c = KafkaConsumer(bootstrap_servers=addr, group_id=group, partition_assignment_strategy=[a], auto_offset_reset='earliest',
                  enable_auto_commit=False, session_timeout_ms=6000, heartbeat_interval_ms=500, api_version=(0, 10, 1))
c.subscribe([topic])
last = None
while not os.path.exists(stopfile):
    recs = c.poll(timeout_ms=100)
    asg = sorted(tp.partition for tp in c.assignment())
    if asg != last:
        print(json.dumps({"assigned": asg}), flush=True)
        last = asg
    for tp, rs in recs.items():
        for r in rs:
            print(json.dumps({"p": tp.partition, "o": r.offset, "a": asg}), flush=True)
    if recs:
        c.commit()
c.close()
`

type pyMember struct {
	mu       sync.Mutex
	assigned []int32
	records  []consumed
	err      error
	stopFile string
	cmd      *exec.Cmd
	done     chan struct{}
}

func pythonAvailable() bool {
	return exec.Command("/usr/bin/python3", "-c", "import kafka").Run() == nil
}

func startPyMember(t *testing.T, addr, topic, group, strategy string) *pyMember {
	t.Helper()
	m := &pyMember{stopFile: filepath.Join(t.TempDir(), "stop"), done: make(chan struct{})}
	m.cmd = exec.Command("/usr/bin/python3", "-c", pythonGroupMember, addr, topic, group, strategy, m.stopFile)
	out, err := m.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	m.cmd.Stderr = &stderr
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(m.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var l struct {
				Assigned []int32 `json:"assigned"`
				P        *int32  `json:"p"`
				O        int64   `json:"o"`
				A        []int32 `json:"a"`
			}
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				continue
			}
			m.mu.Lock()
			if l.P == nil {
				m.assigned = l.Assigned
			} else {
				owned := false
				for _, p := range l.A {
					owned = owned || p == *l.P
				}
				if !owned {
					m.err = fmt.Errorf("kafka-python consumed %d@%d without owning it", *l.P, l.O)
				}
				m.records = append(m.records, consumed{"python", common.TopicPartition{Topic: topic, Partition: *l.P}, l.O})
			}
			m.mu.Unlock()
		}
		_ = m.cmd.Wait()
		if t.Failed() {
			t.Logf("kafka-python stderr: %s", stderr.String())
		}
	}()
	t.Cleanup(m.stop)
	return m
}

func (m *pyMember) stop() {
	_ = os.WriteFile(m.stopFile, nil, 0o644)
	select {
	case <-m.done:
	case <-time.After(30 * time.Second):
		_ = m.cmd.Process.Kill()
		<-m.done
	}
}

func (m *pyMember) snapshot() ([]int32, []consumed) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]int32(nil), m.assigned...), append([]consumed(nil), m.records...)
}

// pythonCommitted reads the group's committed offsets of topic's partitions with kafka-python.
func pythonCommitted(t *testing.T, addr, group, topic string, partitions int) map[int32]int64 {
	t.Helper()
	script := `
import sys, json
from kafka import KafkaConsumer, TopicPartition
addr, group, topic, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
c = KafkaConsumer(bootstrap_servers=addr, group_id=group, enable_auto_commit=False, api_version=(0, 10, 1))
print(json.dumps({str(p): c.committed(TopicPartition(topic, p)) for p in range(n)}))
c.close()
`
	out, err := exec.CommandContext(within(t, time.Minute), "/usr/bin/python3", "-c", script, addr, group, topic, fmt.Sprint(partitions)).Output()
	if err != nil {
		t.Fatalf("kafka-python committed: %v", err)
	}
	var m map[string]*int64
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	res := map[int32]int64{}
	for k, v := range m {
		var p int32
		fmt.Sscan(k, &p)
		if v != nil {
			res[p] = *v
		}
	}
	return res
}
