package dockerentrypoint

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/zk/ensemble"
)

// The ZooKeeper image's layout: everything a server writes is under ZooKeeperRoot, the volume.
const (
	ZooKeeperRoot    = "/var/lib/zookeeper"
	ZooKeeperPort    = 2181
	zooKeeperCfgName = "zoo.cfg"
)

// zooVariables are the ZOO_* variables the ZooKeeper image reads, with the zoo.cfg key each
// sets and its default ("" = not written, ZooKeeper's own default applies).
var zooVariables = []struct{ env, key, def string }{
	{"ZOO_TICK_TIME", "tickTime", "2000"},
	{"ZOO_INIT_LIMIT", "initLimit", "10"},
	{"ZOO_SYNC_LIMIT", "syncLimit", "5"},
	{"ZOO_MAX_CLIENT_CNXNS", "maxClientCnxns", "60"},
	{"ZOO_MIN_SESSION_TIMEOUT", "minSessionTimeout", ""},
	{"ZOO_MAX_SESSION_TIMEOUT", "maxSessionTimeout", ""},
	{"ZOO_AUTOPURGE_SNAPRETAINCOUNT", "autopurge.snapRetainCount", "3"},
	{"ZOO_AUTOPURGE_PURGEINTERVAL", "autopurge.purgeInterval", "24"},
}

// ZOO_MY_ID and ZOO_SERVERS describe the ensemble; ZOO_CFG_EXTRA adds zoo.cfg lines ("k=v k=v").
var zooServer = regexp.MustCompile(`^server\.(\d+)=([^:;\s]+):(\d+):(\d+)(?::(participant|observer))?(?:;(?:[^:;\s]+:)?\d+)?$`)

// ZooKeeperSetup is what the ZooKeeper container writes and runs.
type ZooKeeperSetup struct {
	// MyID is the server id (0 for a standalone server, which has no myid file).
	MyID int
	// Cfg is zoo.cfg's text.
	Cfg string
	// Argv is the java command line.
	Argv []string
}

// ZooKeeperCommand builds zoo.cfg and the java command line from the ZOO_* variables (and
// JVMFLAGS, the JVM options, and JAVA, the java binary, as ZooKeeper's own scripts read them)
// for a server whose files live under root.
func ZooKeeperCommand(env map[string]string, root string) (ZooKeeperSetup, error) {
	var s ZooKeeperSetup
	known := map[string]bool{"ZOO_MY_ID": true, "ZOO_SERVERS": true, "ZOO_CFG_EXTRA": true}
	for _, v := range zooVariables {
		known[v.env] = true
	}
	for _, name := range slices.Sorted(maps.Keys(env)) {
		if strings.HasPrefix(name, "ZOO_") && !known[name] {
			return s, fmt.Errorf("%s is not a setting of this image (docs/docker.md lists them)", name)
		}
	}
	var b strings.Builder
	line := func(k, v string) { fmt.Fprintf(&b, "%s=%s\n", k, v) }
	b.WriteString("# written by zkafka-docker from the container's ZOO_* variables at every start\n")
	line("dataDir", filepath.Join(root, "data"))
	line("dataLogDir", filepath.Join(root, "datalog"))
	line("clientPort", strconv.Itoa(ZooKeeperPort))
	for _, v := range zooVariables {
		val := v.def
		if e, ok := env[v.env]; ok {
			val = strings.TrimSpace(e)
		}
		if val == "" {
			continue
		}
		if n, err := strconv.Atoi(val); err != nil || n < 0 {
			return s, fmt.Errorf("%s=%q is not a non-negative integer", v.env, val)
		}
		line(v.key, val)
	}
	line("admin.enableServer", "false")
	line("4lw.commands.whitelist", "*")
	line("reconfigEnabled", "false")
	servers := strings.Fields(env["ZOO_SERVERS"])
	if len(servers) > 0 {
		id, err := strconv.Atoi(strings.TrimSpace(env["ZOO_MY_ID"]))
		if err != nil || id < 1 || id > 255 {
			return s, fmt.Errorf("ZOO_MY_ID=%q: a server of an ensemble needs its id, 1 to 255", env["ZOO_MY_ID"])
		}
		s.MyID = id
		mine := false
		for _, srv := range servers {
			m := zooServer.FindStringSubmatch(srv)
			if m == nil {
				return s, fmt.Errorf("ZOO_SERVERS entry %q is not server.<id>=<host>:<quorum port>:<election port>[;<client port>]", srv)
			}
			mine = mine || m[1] == strconv.Itoa(id)
			b.WriteString(srv + "\n")
		}
		if !mine {
			return s, fmt.Errorf("ZOO_SERVERS has no server.%d (ZOO_MY_ID)", id)
		}
		// Each container resolves its own name to its own address; listening on every
		// interface also covers a name that resolves elsewhere.
		line("quorumListenOnAllIPs", "true")
		line("standaloneEnabled", "false")
	} else if env["ZOO_MY_ID"] != "" {
		return s, fmt.Errorf("ZOO_MY_ID without ZOO_SERVERS: a standalone server has no id")
	}
	extra := strings.Fields(env["ZOO_CFG_EXTRA"])
	sort.Strings(extra)
	for _, kv := range extra {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return s, fmt.Errorf("ZOO_CFG_EXTRA entry %q is not key=value", kv)
		}
		b.WriteString(kv + "\n")
	}
	s.Cfg = b.String()
	java := env["JAVA"]
	if java == "" {
		java = "java"
	}
	opts := env["JVMFLAGS"]
	if strings.TrimSpace(opts) == "" {
		opts = ensemble.DefaultJavaOpts
	}
	s.Argv = append([]string{java}, ensemble.QuorumPeerMainArgs(strings.Fields(opts), ensemble.DefaultClasspath, filepath.Join(root, zooKeeperCfgName))...)
	return s, nil
}

// writeZooKeeperFiles writes zoo.cfg and, for an ensemble member, data/myid under root.
func writeZooKeeperFiles(s ZooKeeperSetup, root string) error {
	for _, d := range []string{"data", "datalog"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(root, zooKeeperCfgName), []byte(s.Cfg), 0o644); err != nil {
		return err
	}
	if s.MyID > 0 {
		return os.WriteFile(filepath.Join(root, "data", "myid"), []byte(strconv.Itoa(s.MyID)+"\n"), 0o644)
	}
	return nil
}
