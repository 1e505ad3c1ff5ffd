package ensemble

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// startFails runs Start and checks it fails quickly with an error
// mentioning every word in want.
func startFails(t *testing.T, cfg Config, within time.Duration, want ...string) {
	t.Helper()
	begin := time.Now()
	e, err := Start(testContext(t, 60*time.Second), cfg)
	if err == nil {
		e.Close()
		t.Fatal("Start succeeded")
	}
	if d := time.Since(begin); d > within {
		t.Errorf("Start took %v to fail, want < %v", d, within)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

func TestStartMissingJava(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("JAVA_HOME", "")
	startFails(t, Config{Servers: 1}, time.Second, "java not found")
	startFails(t, Config{Servers: 1, Java: "/nonexistent/java"}, time.Second, "/nonexistent/java", "not found")
}

func TestStartMissingJars(t *testing.T) {
	t.Setenv("ZOOKEEPER_CLASSPATH", "/nonexistent/zookeeper.jar:/nonexistent/lib/*")
	startFails(t, Config{Servers: 1}, time.Second, "ZOOKEEPER_CLASSPATH", "/nonexistent/zookeeper.jar", "missing")

	t.Setenv("ZOOKEEPER_CLASSPATH", "")
	t.Setenv("ZOOKEEPER_HOME", t.TempDir())
	startFails(t, Config{Servers: 1}, time.Second, "ZOOKEEPER_HOME", "no jars")
}

// TestStartWrongJar: the classpath exists but holds no ZooKeeper, so the
// JVM exits at once; Start must report that with the log, not time out.
func TestStartWrongJar(t *testing.T) {
	jar := "/usr/share/java/slf4j-simple.jar"
	if _, err := os.Stat(jar); err != nil {
		t.Skip(err)
	}
	startFails(t, Config{Servers: 1, Classpath: jar}, 20*time.Second, "exited", "QuorumPeerMain")
}

func TestStartTimeoutShowsLogTail(t *testing.T) {
	startFails(t, Config{Servers: 1, StartTimeout: time.Millisecond}, 20*time.Second, "not serving", "tail of")
}

func TestStartBadConfig(t *testing.T) {
	startFails(t, Config{Servers: 2}, time.Second, "1 or 3")
	startFails(t, Config{Servers: 3, ClientPorts: []int{1}}, time.Second, "ClientPorts")
}

// TestRunForeground: fixed client port, caller's BaseDir kept, connect
// string printed, clean stop when ctx ends.
func TestRunForeground(t *testing.T) {
	ports, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "zookeeper")
	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		errc <- RunForeground(ctx, Config{Servers: 1, ClientPorts: ports, BaseDir: dir, KeepDir: true, Stdout: &out})
	}()
	want := "127.0.0.1:" + strconv.Itoa(ports[0]) + "\n"
	deadline := time.Now().Add(60 * time.Second)
	for !strings.HasPrefix(out.String(), want) || !strings.Contains(out.String(), "serving (1 server(s), node 0 standalone)") {
		select {
		case err := <-errc:
			t.Fatalf("RunForeground returned early: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("printed %q, want %q", out.String(), want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if m, err := ParseMode(mustSrvr(t, strings.TrimSpace(want))); err != nil || m != ModeStandalone {
		t.Fatalf("mode %q, %v", m, err)
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("RunForeground did not return after cancel")
	}
	if _, err := os.Stat(filepath.Join(dir, "node1", "data", "version-2")); err != nil {
		t.Fatalf("data dir not kept: %v", err)
	}
	if _, err := SendFourLetterWord(strings.TrimSpace(want), "srvr", time.Second); err == nil {
		t.Fatal("server still answers after RunForeground returned")
	}
}

func mustSrvr(t *testing.T, addr string) string {
	t.Helper()
	s, err := SendFourLetterWord(addr, "srvr", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestResolveClasspath(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"lib/b.jar", "lib/a.jar", "zookeeper-3.4.9.jar", "README.txt"} {
		if err := os.WriteFile(filepath.Join(home, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("ZOOKEEPER_CLASSPATH", "")
	t.Setenv("ZOOKEEPER_HOME", home)
	cp, err := resolveClasspath("")
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(home, "lib/a.jar") + ":" + filepath.Join(home, "lib/b.jar") + ":" + filepath.Join(home, "zookeeper-3.4.9.jar")
	if cp != want {
		t.Fatalf("ZOOKEEPER_HOME classpath = %q, want %q", cp, want)
	}
	// ZOOKEEPER_CLASSPATH wins over ZOOKEEPER_HOME; dir/* wildcards are checked.
	t.Setenv("ZOOKEEPER_CLASSPATH", filepath.Join(home, "lib", "*"))
	if cp, err := resolveClasspath(""); err != nil || cp != filepath.Join(home, "lib", "*") {
		t.Fatalf("ZOOKEEPER_CLASSPATH classpath = %q, %v", cp, err)
	}
	// An explicit Config.Classpath wins over both.
	if cp, err := resolveClasspath(filepath.Join(home, "zookeeper-3.4.9.jar")); err != nil || cp != filepath.Join(home, "zookeeper-3.4.9.jar") {
		t.Fatalf("explicit classpath = %q, %v", cp, err)
	}
	t.Setenv("ZOOKEEPER_CLASSPATH", filepath.Join(t.TempDir(), "*"))
	if _, err := resolveClasspath(""); err == nil {
		t.Fatal("empty wildcard dir accepted")
	}
}

func TestZooCfg(t *testing.T) {
	e := &Ensemble{cfg: Config{Servers: 3, BaseDir: t.TempDir(), ExtraConfig: map[string]string{"autopurge.snapRetainCount": "3"}}}
	applyDefaults(&e.cfg)
	nodes := make([]*node, 3)
	for i := range nodes {
		nodes[i] = &node{e: e, id: i + 1, dir: filepath.Join(e.cfg.BaseDir, "node"+strconv.Itoa(i+1)),
			clientPort: 2181 + i, quorumPort: 2888 + i, electionPort: 3888 + i}
	}
	if err := nodes[1].writeFiles(nodes); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(nodes[1].cfgPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"tickTime=500", "initLimit=10", "syncLimit=5", "clientPort=2182", "clientPortAddress=127.0.0.1",
		"dataDir=" + nodes[1].dataDir(), "admin.enableServer=false", "4lw.commands.whitelist=*",
		"maxSessionTimeout=60000", "server.1=127.0.0.1:2888:3888", "server.3=127.0.0.1:2890:3890",
		"autopurge.snapRetainCount=3",
	} {
		if !strings.Contains(string(cfg), "\n"+line+"\n") {
			t.Errorf("zoo.cfg lacks %q:\n%s", line, cfg)
		}
	}
	if myid, err := os.ReadFile(filepath.Join(nodes[1].dataDir(), "myid")); err != nil || string(myid) != "2\n" {
		t.Fatalf("myid = %q, %v", myid, err)
	}
}

func TestConfigFromProperties(t *testing.T) {
	cfg, err := ConfigFromProperties(map[string]string{
		"dataDir": "/tmp/zookeeper", "clientPort": "2182", "maxClientCnxns": "0", "tickTime": "2000",
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Servers != 1 || cfg.BaseDir != "/tmp/zookeeper" || !cfg.KeepDir || len(cfg.ClientPorts) != 1 ||
		cfg.ClientPorts[0] != 2182 || cfg.TickTime != 2*time.Second || cfg.ExtraConfig["maxClientCnxns"] != "0" {
		t.Fatalf("ConfigFromProperties = %+v", cfg)
	}
	if cfg, err := ConfigFromProperties(map[string]string{"dataDir": "d"}); err != nil || cfg.ClientPorts[0] != 2181 {
		t.Fatalf("default clientPort: %+v, %v", cfg, err)
	}
	for _, bad := range []map[string]string{
		{},
		{"dataDir": "d", "clientPort": "x"},
		{"dataDir": "d", "server.1": "h:1:2"},
	} {
		if _, err := ConfigFromProperties(bad); err == nil {
			t.Errorf("ConfigFromProperties(%v) accepted", bad)
		}
	}
}
