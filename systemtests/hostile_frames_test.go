package systemtests

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
)

// rssBytes is a process's resident set size (VmRSS in /proc/<pid>/status).
func rssBytes(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

// Issue 11 acceptance, memory: 30 connections each announce a 100 MB request (the
// socket.request.max.bytes of the harness), send 4 MiB of it and stall, six rounds over. The
// broker allocates a request's buffer as its bytes arrive, so its RSS stays below 1 GiB (before:
// 30 x 100 MB allocated at the size prefix, 5.66 GB), Metadata keeps answering, and once the
// connections are gone the memory goes back to the system.
func TestHostileFrameSizesKeepMemoryBounded(t *testing.T) {
	c := newCluster(t, ClusterConfig{Brokers: 1})
	b := c.Brokers[0]
	pid := b.PID()
	base, err := rssBytes(pid)
	if err != nil {
		t.Fatal(err)
	}
	const conns, declared, sent = 30, 100 << 20, 4 << 20
	var peak int64
	var slowest time.Duration
	for round := 0; round < 6; round++ {
		var wg sync.WaitGroup
		held := make([]net.Conn, conns)
		for i := range held {
			conn, err := net.Dial("tcp", b.Addr())
			if err != nil {
				t.Fatal(err)
			}
			held[i] = conn
			wg.Add(1)
			go func() {
				defer wg.Done()
				frame := make([]byte, 4+sent)
				binary.BigEndian.PutUint32(frame, declared)
				_ = conn.SetWriteDeadline(time.Now().Add(60 * time.Second))
				if _, err := conn.Write(frame); err != nil {
					t.Errorf("round %d: writing the frame start: %v", round, err)
				}
			}()
		}
		wg.Wait()
		// While the 30 frames hang half sent, the broker serves Metadata and its RSS is bounded.
		for i := 0; i < 10; i++ {
			start := time.Now()
			w, err := DialWire(b.Addr(), "metadata-probe", 30*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Roundtrip(&protocol.MetadataRequest{Version: 1}); err != nil {
				t.Fatal(err)
			}
			w.Close()
			slowest = max(slowest, time.Since(start))
			if rss, err := rssBytes(pid); err == nil {
				peak = max(peak, rss)
			}
			time.Sleep(20 * time.Millisecond)
		}
		for _, conn := range held {
			conn.Close()
		}
	}
	t.Logf("RSS %d MiB at start, peak %d MiB over 6 rounds of %d connections announcing %d MiB and sending %d MiB; slowest Metadata %v",
		base>>20, peak>>20, conns, declared>>20, sent>>20, slowest.Round(time.Millisecond))
	if peak >= 1<<30 {
		t.Errorf("RSS peaked at %d MiB", peak>>20)
	}
	// Given back: the broker returns freed receive buffers to the system within a few seconds.
	var now int64
	closed := time.Now()
	deadline := closed.Add(60 * time.Second)
	for {
		if now, err = rssBytes(pid); err != nil {
			t.Fatal(err)
		}
		if now < base+128<<20 || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("RSS %d MiB %v after the connections closed", now>>20, time.Since(closed).Round(100*time.Millisecond))
	if now >= base+128<<20 {
		t.Errorf("RSS still %d MiB (start %d MiB) 60 s after the connections closed", now>>20, base>>20)
	}
}
