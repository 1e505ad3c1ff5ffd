package ensemble

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ConfigFromProperties turns the keys of a zookeeper.properties file (as
// read by a java.util.Properties loader) into a standalone Config for
// RunForeground, the way bin/zookeeper-server-start.sh hands the file to
// QuorumPeerMain:
//
//   - dataDir becomes BaseDir (kept on Close); the server's own files go
//     under dataDir/node1/ (zoo.cfg, data/, zookeeper.log), not straight
//     into dataDir as with Kafka's script;
//   - clientPort (default 2181) is fixed;
//   - tickTime, initLimit, syncLimit and maxSessionTimeout map to their
//     fields; every other key (maxClientCnxns, autopurge.*, ...) is passed
//     through ExtraConfig.
//
// server.N keys (a quorum described in one file) are rejected: a quorum
// needs one file per server, which Start writes itself with Servers: 3.
func ConfigFromProperties(props map[string]string) (Config, error) {
	cfg := Config{Servers: 1, KeepDir: true, ClientPorts: []int{2181}, ExtraConfig: map[string]string{}}
	num := func(k, v string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("ensemble: %s=%q is not a positive integer", k, v)
		}
		return n, nil
	}
	for k, v := range props {
		var err error
		var n int
		switch {
		case k == "dataDir":
			cfg.BaseDir = strings.TrimSpace(v)
		case k == "clientPort":
			n, err = num(k, v)
			cfg.ClientPorts = []int{n}
		case k == "tickTime":
			n, err = num(k, v)
			cfg.TickTime = time.Duration(n) * time.Millisecond
		case k == "initLimit":
			cfg.InitLimit, err = num(k, v)
		case k == "syncLimit":
			cfg.SyncLimit, err = num(k, v)
		case k == "maxSessionTimeout":
			n, err = num(k, v)
			cfg.MaxSessionTimeout = time.Duration(n) * time.Millisecond
		case strings.HasPrefix(k, "server."):
			return Config{}, fmt.Errorf("ensemble: %s: quorum properties are not supported here; use Config{Servers: 3}", k)
		case k == "dataLogDir" || k == "clientPortAddress":
			// The harness keeps transaction logs in data/ and listens on
			// 127.0.0.1 (Addr and ConnectString say so).
		default:
			cfg.ExtraConfig[k] = v
		}
		if err != nil {
			return Config{}, err
		}
	}
	if cfg.BaseDir == "" {
		return Config{}, fmt.Errorf("ensemble: zookeeper.properties has no dataDir")
	}
	return cfg, nil
}
