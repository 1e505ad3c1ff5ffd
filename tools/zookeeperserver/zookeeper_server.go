package zookeeperserver

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	kconfig "github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/zk/ensemble"
)

// Start is `zookeeper-server-start.sh [-daemon] zookeeper.properties`: it runs ZooKeeper in the
// foreground until SIGINT or SIGTERM. -daemon is accepted; run it under nohup (as `make zk-up`
// does) to detach, since a Go process cannot re-exec itself into the background as the script does.
func Start(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "-daemon" {
		args = args[1:]
	}
	if len(args) != 1 {
		fmt.Fprintln(stderr, "USAGE: zookeeper-server-start.sh [-daemon] zookeeper.properties")
		return 1
	}
	props, err := kconfig.LoadProps(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "Invalid config, exiting abnormally: %v\n", err)
		return 2
	}
	cfg, err := ensemble.ConfigFromProperties(props)
	if err != nil {
		fmt.Fprintf(stderr, "Invalid config, exiting abnormally: %v\n", err)
		return 2
	}
	cfg.Stdout = stdout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := ensemble.RunForeground(ctx, cfg); err != nil {
		fmt.Fprintf(stderr, "Unexpected exception, exiting abnormally: %v\n", err)
		return 1
	}
	return 0
}

// Stop is `zookeeper-server-stop.sh`: SIGTERM to every `zkafka zookeeper-server-start` process and
// every QuorumPeerMain JVM (a ZooKeeper started by hand); "No zookeeper server to stop" and exit 1
// when there is none. Like the script, it does not wait.
func Stop(args []string, stdout, stderr io.Writer) int {
	pids := findServers("/proc")
	if len(pids) == 0 {
		fmt.Fprintln(stdout, "No zookeeper server to stop")
		return 1
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	return 0
}

// findServers scans procRoot for ZooKeeper servers: zkafka processes running
// zookeeper-server-start, and java processes running QuorumPeerMain that are not their children.
func findServers(procRoot string) []int {
	entries, _ := os.ReadDir(procRoot)
	starters := map[int]bool{}
	javas := map[int]int{} // pid -> parent pid
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "cmdline"))
		if err != nil || len(raw) == 0 {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		switch {
		case filepath.Base(argv[0]) == "zkafka" && len(argv) > 1 && argv[1] == "zookeeper-server-start":
			starters[pid] = true
		case filepath.Base(argv[0]) == "java" && contains(argv, "org.apache.zookeeper.server.quorum.QuorumPeerMain"):
			javas[pid] = parentOf(procRoot, pid)
		}
	}
	var out []int
	for pid := range starters {
		out = append(out, pid)
	}
	for pid, ppid := range javas {
		if !starters[ppid] {
			out = append(out, pid)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func parentOf(procRoot string, pid int) int {
	raw, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
