package dockerentrypoint

import (
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
)

const usage = `usage: zkafka-docker broker | zookeeper | health broker | health zookeeper`

// Main runs one command of zkafka-docker with environ (KEY=value strings) and returns the exit
// status; broker and zookeeper only return when they cannot exec the server.
func Main(args, environ []string, stdout, stderr io.Writer) int {
	env := envMap(environ)
	switch strings.Join(args, " ") {
	case "broker":
		argv, err := BrokerCommand(env)
		if err != nil {
			fmt.Fprintln(stderr, "zkafka-docker:", err)
			return 1
		}
		return execv(argv, environ, stderr)
	case "zookeeper":
		s, err := ZooKeeperCommand(env, ZooKeeperRoot)
		if err == nil {
			err = writeZooKeeperFiles(s, ZooKeeperRoot)
		}
		if err != nil {
			fmt.Fprintln(stderr, "zkafka-docker:", err)
			return 1
		}
		fmt.Fprintf(stderr, "zkafka-docker: %s:\n%s", ZooKeeperRoot+"/"+zooKeeperCfgName, s.Cfg)
		return execv(s.Argv, environ, stderr)
	case "health zookeeper":
		mode, err := ZooKeeperHealth(zooKeeperLocalAddr)
		if err != nil {
			fmt.Fprintln(stderr, "unhealthy:", err)
			return 1
		}
		fmt.Fprintln(stdout, "Mode:", mode)
		return 0
	case "health broker":
		reg, err := BrokerHealth(env)
		if err != nil {
			fmt.Fprintln(stderr, "unhealthy:", err)
			return 1
		}
		fmt.Fprintln(stdout, "registered:", reg)
		return 0
	}
	fmt.Fprintln(stderr, usage)
	return 2
}

// execv replaces this process by argv[0] (looked up on PATH when it has no slash), so that the
// server is the container's main process and receives docker stop's SIGTERM itself.
func execv(argv, environ []string, stderr io.Writer) int {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintln(stderr, "zkafka-docker:", err)
		return 1
	}
	fmt.Fprintln(stderr, "zkafka-docker: exec", strings.Join(argv, " "))
	err = syscall.Exec(path, argv, environ)
	fmt.Fprintf(stderr, "zkafka-docker: exec %s: %v\n", path, err)
	return 1
}

func envMap(environ []string) map[string]string {
	m := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}
