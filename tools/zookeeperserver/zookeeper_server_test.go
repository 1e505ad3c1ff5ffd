package zookeeperserver

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStartUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Start(nil, &out, &errb); code != 1 || !strings.Contains(errb.String(), "USAGE: zookeeper-server-start.sh") {
		t.Fatalf("code %d stderr %q", code, errb.String())
	}
	if code := Start([]string{"/nonexistent/zookeeper.properties"}, &out, &errb); code != 2 {
		t.Fatalf("missing file: code %d", code)
	}
}

// fakeProc writes a /proc-like entry with the given argv and parent pid.
func fakeProc(t *testing.T, root string, pid, ppid int, argv ...string) {
	t.Helper()
	dir := filepath.Join(root, itoa(pid))
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "cmdline"), []byte(strings.Join(argv, "\x00")+"\x00"), 0o644)
	os.WriteFile(filepath.Join(dir, "stat"), []byte(itoa(pid)+" (x y) S "+itoa(ppid)+" 1 1"), 0o644)
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestFindServers(t *testing.T) {
	root := t.TempDir()
	fakeProc(t, root, 100, 1, "/repo/bin/zkafka", "zookeeper-server-start", "config/zookeeper.properties")
	fakeProc(t, root, 101, 100, "/usr/bin/java", "-cp", "x", "org.apache.zookeeper.server.quorum.QuorumPeerMain", "zoo.cfg")
	fakeProc(t, root, 200, 1, "/usr/bin/java", "org.apache.zookeeper.server.quorum.QuorumPeerMain", "zoo.cfg")
	fakeProc(t, root, 300, 1, "/usr/bin/java", "kafka.Kafka", "server.properties")
	fakeProc(t, root, 400, 1, "/repo/bin/zkafka", "server-start", "server.properties")
	got := map[int]bool{}
	for _, p := range findServers(root) {
		got[p] = true
	}
	if len(got) != 2 || !got[100] || !got[200] {
		t.Fatalf("found %v, want the zkafka starter 100 and the stand-alone JVM 200", got)
	}
}

// TestStartServesAndStopsOnSIGTERM runs the real command in a child process (the test binary
// re-executed) against the installed ZooKeeper: it prints the connect string, answers srvr, and
// exits 0 on SIGTERM, as `make run` / `make zk-down` rely on.
func TestStartServesAndStopsOnSIGTERM(t *testing.T) {
	if os.Getenv("ZKSTART_CHILD") != "" {
		os.Exit(Start([]string{os.Getenv("ZKSTART_CHILD")}, os.Stdout, os.Stderr))
	}
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	props := filepath.Join(dir, "zookeeper.properties")
	os.WriteFile(props, []byte("dataDir="+filepath.Join(dir, "zk")+"\nclientPort="+itoa(port)+"\nmaxClientCnxns=0\n"), 0o644)
	cmd := exec.Command(os.Args[0], "-test.run=TestStartServesAndStopsOnSIGTERM")
	cmd.Env = append(os.Environ(), "ZKSTART_CHILD="+props)
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, stdout)
	}()
	deadline := time.After(60 * time.Second)
	serving := false
	for !serving {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("child exited early: %s", stderr.String())
			}
			serving = strings.Contains(l, "serving")
		case <-deadline:
			t.Fatalf("no serving line; stderr: %s", stderr.String())
		}
	}
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+itoa(port), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("srvr"))
	reply, _ := io.ReadAll(c)
	c.Close()
	if !strings.Contains(string(reply), "Mode: standalone") {
		t.Fatalf("srvr reply %q", reply)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v; stderr %s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("did not stop on SIGTERM")
	}
}
