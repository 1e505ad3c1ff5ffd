package systemtests

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
)

// syscallBytes sums what strace saw: bytes moved by sendfile, and bytes written to sockets with
// write/writev (pwrite64 and writes to files are the log appends of produce).
type syscallBytes struct {
	sendfile, sendfileCalls  int64
	socketWrite, socketCalls int64
	maxSocketWrite           int64
}

var (
	straceLine  = regexp.MustCompile(`^(\d+)\s+(.*)$`)
	straceCall  = regexp.MustCompile(`^(sendfile|write|writev|pwrite64|sendto|sendmsg)\((\d+)<([^>]*)>`)
	straceRes   = regexp.MustCompile(`^<\.\.\. (sendfile|write|writev|pwrite64|sendto|sendmsg) resumed>`)
	straceRet   = regexp.MustCompile(`\)\s+=\s+(-?\d+)`)
	straceUnfin = regexp.MustCompile(`<unfinished \.\.\.>$`)
)

// parseStrace reads `strace -f -yy` output: "<pid> call(fd<desc>, ...) = n", with calls split
// into "<unfinished ...>" and "<... call resumed>" lines when threads interleave.
func parseStrace(path string) (syscallBytes, error) {
	var r syscallBytes
	f, err := os.Open(path)
	if err != nil {
		return r, err
	}
	defer f.Close()
	type pending struct {
		call   string
		socket bool
	}
	open := map[string]pending{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		m := straceLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		pid, rest := m[1], m[2]
		var p pending
		if c := straceCall.FindStringSubmatch(rest); c != nil {
			p = pending{call: c[1], socket: strings.HasPrefix(c[3], "TCP") || strings.HasPrefix(c[3], "socket:")}
			if straceUnfin.MatchString(rest) {
				open[pid] = p
				continue
			}
		} else if c := straceRes.FindStringSubmatch(rest); c != nil {
			p = open[pid]
			delete(open, pid)
			if p.call == "" {
				p.call = c[1]
			}
		} else {
			continue
		}
		ret := straceRet.FindStringSubmatch(rest)
		if ret == nil {
			continue
		}
		n, _ := strconv.ParseInt(ret[1], 10, 64)
		if n <= 0 {
			continue
		}
		switch {
		case p.call == "sendfile":
			r.sendfile += n
			r.sendfileCalls++
		case p.call != "sendfile" && p.call != "pwrite64" && p.socket:
			r.socketWrite += n
			r.socketCalls++
			r.maxSocketWrite = max(r.maxSocketWrite, n)
		}
	}
	return r, sc.Err()
}

// Issue 5 acceptance: fetch responses stream segment bytes from the file to the socket with
// sendfile. The broker runs under strace (only sendfile and the write family are traced);
// a consumer reads a ~40 MB segment; sendfile must carry at least 90% of the segment's bytes
// and socket write/writev no more than a tenth of them, none the size of a fetch payload.
func TestFetchUsesSendfile(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace not installed")
	}
	// ptrace may be forbidden (containers) and --seccomp-bpf needs kernel support: probe first.
	if out, err := exec.Command("strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=write", "-o", os.DevNull, "true").CombinedOutput(); err != nil {
		t.Skipf("strace cannot trace here: %v: %s", err, out)
	}
	var traceFile string
	c := newCluster(t, ClusterConfig{Brokers: 1, Wrapper: func(id int32, dir string) []string {
		traceFile = filepath.Join(dir, "strace.out")
		return []string{"strace", "-f", "-qq", "-yy", "--seccomp-bpf", "-e", "trace=sendfile,write,writev,pwrite64,sendto,sendmsg", "-e", "signal=none", "-o", traceFile}
	}})
	ctx := within(t, 5*time.Minute)
	const topic = "sendfile"
	if err := c.CreateTopic(ctx, topic, map[int32][]int32{0: {0}}); err != nil {
		t.Fatal(err)
	}
	const n = 400_000 // 100-byte values: ~50 MB of log with message v1 overhead
	cfg, err := SaramaConfig(sarama.V0_10_2_0, "none")
	if err != nil {
		t.Fatal(err)
	}
	if err := SaramaProduce(ctx, c.BootstrapServers(), cfg, ProduceSpec{Topic: topic, Partitions: 1, Count: n, Size: 100}); err != nil {
		t.Fatal(err)
	}
	before, err := parseStrace(traceFile)
	if err != nil {
		t.Fatal(err)
	}
	var logBytes int64
	matches, _ := filepath.Glob(filepath.Join(c.Brokers[0].LogDirs[0], topic+"-0", "*.log"))
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil {
			logBytes += fi.Size()
		}
	}
	if logBytes < 30<<20 {
		t.Fatalf("segment holds %d bytes, expected ~50 MB (%v)", logBytes, matches)
	}
	next := 0
	if _, err := SaramaConsume(ctx, c.BootstrapServers(), cfg, topic, 0, n, func(m ConsumedMessage) error {
		if err := ExpectMessage(m, next, 100); err != nil {
			return err
		}
		next++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// strace writes as it goes; give it a moment to catch up with the last calls.
	var after syscallBytes
	for deadline := time.Now().Add(10 * time.Second); ; {
		after, err = parseStrace(traceFile)
		if err != nil {
			t.Fatal(err)
		}
		if after.sendfile-before.sendfile >= logBytes*9/10 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	sf := after.sendfile - before.sendfile
	sw := after.socketWrite - before.socketWrite
	t.Logf("segment %d bytes; during the fetches: sendfile %d bytes in %d calls, socket write/writev %d bytes in %d calls (largest %d)",
		logBytes, sf, after.sendfileCalls-before.sendfileCalls, sw, after.socketCalls-before.socketCalls, after.maxSocketWrite)
	if sf < logBytes*9/10 {
		t.Errorf("sendfile carried %d bytes, want at least 90%% of the %d-byte segment", sf, logBytes)
	}
	if sw > logBytes/10 {
		t.Errorf("socket writes carried %d bytes: fetch payloads go through user space", sw)
	}
	if after.maxSocketWrite >= 1<<20 {
		t.Errorf("a socket write of %d bytes: the size of a fetch payload", after.maxSocketWrite)
	}
}
