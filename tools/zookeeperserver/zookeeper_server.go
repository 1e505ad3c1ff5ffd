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
	"github.com/zkafka/zkafka/tools/commandline"
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
	return commandline.StopAll(findServers("/proc"), "zookeeper server", stdout)
}

// findServers scans procRoot for ZooKeeper servers: zkafka processes running
// zookeeper-server-start, and java processes running QuorumPeerMain that are not their children.
func findServers(procRoot string) []int {
	starters := map[int]bool{}
	javas := map[int]int{} // pid -> parent pid
	for _, p := range commandline.Processes(procRoot) {
		switch {
		case filepath.Base(p.Argv[0]) == "zkafka" && len(p.Argv) > 1 && p.Argv[1] == "zookeeper-server-start":
			starters[p.PID] = true
		case filepath.Base(p.Argv[0]) == "java" && contains(p.Argv, "org.apache.zookeeper.server.quorum.QuorumPeerMain"):
			javas[p.PID] = parentOf(procRoot, p.PID)
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
