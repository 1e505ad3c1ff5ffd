package zkshell

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/tools/commandline"
	"github.com/zkafka/zkafka/zk/zkclient"
)

// timeout is ZooKeeperMain's default session timeout (-timeout 30000).
const timeout = 30 * time.Second

// Usage is bin/zookeeper-shell.sh's message without arguments.
const Usage = "USAGE: zookeeper-shell.sh zookeeper_host:port[/path] [args...]"

// commands lists the shell's commands and their argument help, in the order
// usage prints them.
var commands = [][2]string{
	{"connect", "host:port"}, {"get", "path [watch]"}, {"ls", "path [watch]"}, {"set", "path data [version]"},
	{"rmr", "path"}, {"delquota", "[-n|-b] path"}, {"quit", ""}, {"printwatches", "on|off"},
	{"create", "[-s] [-e] path data acl"}, {"stat", "path [watch]"}, {"close", ""}, {"ls2", "path [watch]"},
	{"history", ""}, {"listquota", "path"}, {"setAcl", "path acl"}, {"getAcl", "path"}, {"sync", "path"},
	{"redo", "cmdno"}, {"addauth", "scheme auth"}, {"delete", "path [version]"}, {"setquota", "-n|-b val path"},
}

// ZooKeeperMain is one shell session.
//
// ZooKeeper 3.4.9: org.apache.zookeeper.ZooKeeperMain.
type ZooKeeperMain struct {
	Server string
	Out    io.Writer
	Err    io.Writer
	zk     *zkclient.Client
}

// Run is zookeeper-shell.sh with a command on the command line; without one
// it reads nothing and returns after connecting (see RunWithInput).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return RunWithInput(ctx, args, nil, stdout, stderr)
}

// RunWithInput is zookeeper-shell.sh: args are host:port[/chroot] and an
// optional command; without a command the commands are read from stdin, one
// per line, until EOF or "quit".
func RunWithInput(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		fmt.Fprintln(stdout, Usage)
		return 1
	}
	m := &ZooKeeperMain{Server: args[0], Out: stdout, Err: stderr}
	fmt.Fprintln(stdout, "Connecting to "+m.Server)
	l := logrus.New()
	l.SetOutput(io.Discard)
	// The ZooKeeper client logs in when the JAAS file in KAFKA_OPTS has a Client section.
	_, loginOpts, err := commandline.ZkLogin()
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}
	zk, err := zkclient.New(m.Server, timeout, timeout, append(loginOpts, zkclient.WithLogger(logrus.NewEntry(l)))...)
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}
	m.zk = zk
	defer zk.Close()
	fmt.Fprint(stdout, "\nWATCHER::\n\nWatchedEvent state:SyncConnected type:None path:null\n")
	if len(args) > 1 {
		m.ProcessCmd(args[1:])
		return 0
	}
	fmt.Fprintln(stdout, "Welcome to ZooKeeper!")
	fmt.Fprintln(stdout, "JLine support is disabled")
	if stdin == nil {
		return 0
	}
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if fields[0] == "quit" {
			fmt.Fprintln(stdout, "Quitting...")
			return 0
		}
		m.ProcessCmd(fields)
	}
	return 0
}

func (m *ZooKeeperMain) usage() {
	fmt.Fprintln(m.Err, "ZooKeeper -server host:port cmd args")
	for _, c := range commands {
		fmt.Fprintf(m.Err, "\t%s %s\n", c[0], c[1])
	}
}

// ProcessCmd runs one command (args[0]) and reports ZooKeeper errors the way
// ZooKeeperMain.processCmd does: one line on stderr.
func (m *ZooKeeperMain) ProcessCmd(args []string) {
	path := ""
	if len(args) > 1 {
		path = args[1]
	}
	err := m.processZKCmd(args)
	switch {
	case err == nil:
	case errors.Is(err, zkclient.ErrNoNode):
		fmt.Fprintln(m.Err, "Node does not exist: "+path)
	case errors.Is(err, zkclient.ErrNodeExists):
		fmt.Fprintln(m.Err, "Node already exists: "+path)
	case errors.Is(err, zkclient.ErrNotEmpty):
		fmt.Fprintln(m.Err, "Node not empty: "+path)
	case errors.Is(err, zkclient.ErrNoChildrenForEphemerals):
		fmt.Fprintln(m.Err, "Ephemerals cannot have children: "+path)
	case errors.Is(err, zkclient.ErrBadVersion):
		fmt.Fprintln(m.Err, "version No is not valid : "+path)
	default:
		fmt.Fprintln(m.Err, "Command failed: "+err.Error())
	}
}

func (m *ZooKeeperMain) processZKCmd(args []string) error {
	cmd := args[0]
	known := false
	for _, c := range commands {
		known = known || c[0] == cmd
	}
	if !known {
		m.usage()
		return nil
	}
	n := len(args)
	switch {
	case cmd == "ls" && n >= 2:
		children, err := m.zk.GetChildren(args[1])
		if err != nil {
			return err
		}
		sort.Strings(children)
		fmt.Fprintln(m.Out, "["+strings.Join(children, ", ")+"]")
	case cmd == "ls2" && n >= 2:
		children, err := m.zk.GetChildren(args[1])
		if err != nil {
			return err
		}
		sort.Strings(children)
		fmt.Fprintln(m.Out, "["+strings.Join(children, ", ")+"]")
		return m.stat(args[1])
	case cmd == "get" && n >= 2:
		data, st, err := m.zk.ReadData(args[1])
		if err != nil {
			return err
		}
		if data == nil {
			data = []byte("null")
		}
		fmt.Fprintln(m.Out, string(data))
		m.printStat(st)
	case cmd == "stat" && n >= 2:
		return m.stat(args[1])
	case cmd == "set" && n >= 3:
		version := int32(-1)
		if n > 3 {
			v, err := strconv.ParseInt(args[3], 10, 32)
			if err != nil {
				return fmt.Errorf("java.lang.NumberFormatException: For input string: \"%s\"", args[3])
			}
			version = int32(v)
		}
		if _, err := m.zk.WriteDataConditional(args[1], []byte(args[2]), version); err != nil {
			return err
		}
		return m.stat(args[1])
	case cmd == "create" && n >= 3:
		return m.create(args)
	case cmd == "delete" && n >= 2:
		version := int32(-1)
		if n > 2 {
			v, err := strconv.ParseInt(args[2], 10, 32)
			if err != nil {
				return fmt.Errorf("java.lang.NumberFormatException: For input string: \"%s\"", args[2])
			}
			version = int32(v)
		}
		return m.zk.DeleteConditional(args[1], version)
	case cmd == "rmr" && n >= 2:
		_, err := m.zk.DeleteRecursive(args[1])
		return err
	case cmd == "quit":
		fmt.Fprintln(m.Out, "Quitting...")
	}
	return nil
}

// create handles `create [-s] [-e] path data [acl]`.
func (m *ZooKeeperMain) create(args []string) error {
	first := 0
	seq, eph := false, false
	switch {
	case len(args) > 2 && ((args[1] == "-e" && args[2] == "-s") || (args[1] == "-s" && args[2] == "-e")):
		first, seq, eph = 2, true, true
	case args[1] == "-e":
		first, eph = 1, true
	case args[1] == "-s":
		first, seq = 1, true
	}
	if len(args) < first+3 {
		return nil
	}
	path, data := args[first+1], []byte(args[first+2])
	var created string
	var err error
	switch {
	case seq && eph:
		created, err = m.zk.CreateEphemeralSequential(path, data)
	case seq:
		created, err = m.zk.CreatePersistentSequential(path, data)
	case eph:
		created, err = path, m.zk.CreateEphemeral(path, data)
	default:
		created, err = path, m.zk.CreatePersistent(path, data, false)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(m.Err, "Created "+created)
	return nil
}

func (m *ZooKeeperMain) stat(path string) error {
	_, st, ok, err := m.zk.ReadDataMaybeNull(path)
	if err != nil {
		return err
	}
	if !ok {
		return zkclient.ErrNoNode
	}
	m.printStat(st)
	return nil
}

// javaDate is java.util.Date.toString's layout.
const javaDate = "Mon Jan 02 15:04:05 MST 2006"

// printStat writes the Stat lines to stderr, as ZooKeeperMain.printStat.
func (m *ZooKeeperMain) printStat(st *zkclient.Stat) {
	w := m.Err
	fmt.Fprintf(w, "cZxid = 0x%x\n", uint64(st.Czxid))
	fmt.Fprintf(w, "ctime = %s\n", time.UnixMilli(st.Ctime).Format(javaDate))
	fmt.Fprintf(w, "mZxid = 0x%x\n", uint64(st.Mzxid))
	fmt.Fprintf(w, "mtime = %s\n", time.UnixMilli(st.Mtime).Format(javaDate))
	fmt.Fprintf(w, "pZxid = 0x%x\n", uint64(st.Pzxid))
	fmt.Fprintf(w, "cversion = %d\n", st.Cversion)
	fmt.Fprintf(w, "dataVersion = %d\n", st.Version)
	fmt.Fprintf(w, "aclVersion = %d\n", st.Aversion)
	fmt.Fprintf(w, "ephemeralOwner = 0x%x\n", uint64(st.EphemeralOwner))
	fmt.Fprintf(w, "dataLength = %d\n", st.DataLength)
	fmt.Fprintf(w, "numChildren = %d\n", st.NumChildren)
}
