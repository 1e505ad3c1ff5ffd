package zkshell

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zktest"
)

func TestMain(m *testing.M) { os.Exit(zktest.Main(m, 1)) }

const connected = "\nWATCHER::\n\nWatchedEvent state:SyncConnected type:None path:null\n"

func shell(t *testing.T, server string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	var in *strings.Reader
	if stdin != "" {
		in = strings.NewReader(stdin)
	}
	var code int
	if in != nil {
		code = RunWithInput(context.Background(), append([]string{server}, args...), in, &out, &errOut)
	} else {
		code = Run(context.Background(), append([]string{server}, args...), &out, &errOut)
	}
	return out.String(), errOut.String(), code
}

var statLines = regexp.MustCompile(`^cZxid = 0x[0-9a-f]+
ctime = \w{3} \w{3} \d\d \d\d:\d\d:\d\d \w+ \d{4}
mZxid = 0x[0-9a-f]+
mtime = .*
pZxid = 0x[0-9a-f]+
cversion = (\d+)
dataVersion = (\d+)
aclVersion = 0
ephemeralOwner = 0x0
dataLength = (\d+)
numChildren = (\d+)
$`)

func TestOneShotCommands(t *testing.T) {
	// The chroot must exist for a chrooted client; create it through the root.
	connect := zktest.Chroot(t)
	servers, chroot := zktest.SplitConnect(connect)
	root := strings.Join(servers, ",")
	if _, errOut, _ := shell(t, root, "", "create", chroot, ""); errOut != "Created "+chroot+"\n" {
		t.Fatalf("create chroot: %q", errOut)
	}
	out, errOut, code := shell(t, connect, "", "create", "/brokers", "")
	if code != 0 || out != "Connecting to "+connect+"\n"+connected || errOut != "Created /brokers\n" {
		t.Fatalf("create: %d %q %q", code, out, errOut)
	}
	shell(t, connect, "", "create", "/brokers/ids", "")
	shell(t, connect, "", "create", "/brokers/topics", "")
	out, _, _ = shell(t, connect, "", "ls", "/brokers")
	if out != "Connecting to "+connect+"\n"+connected+"[ids, topics]\n" {
		t.Errorf("ls: %q", out)
	}
	out, errOut, _ = shell(t, connect, "", "set", "/brokers/ids", `{"a":1}`)
	if m := statLines.FindStringSubmatch(errOut); out != "Connecting to "+connect+"\n"+connected || m == nil || m[2] != "1" || m[3] != "7" {
		t.Errorf("set: %q %q", out, errOut)
	}
	out, errOut, _ = shell(t, connect, "", "get", "/brokers/ids")
	if m := statLines.FindStringSubmatch(errOut); !strings.HasSuffix(out, connected+`{"a":1}`+"\n") || m == nil || m[3] != "7" || m[4] != "0" {
		t.Errorf("get: %q %q", out, errOut)
	}
	out, _, _ = shell(t, connect, "", "get", "/brokers")
	if !strings.HasSuffix(out, connected+"\n") {
		t.Errorf("get empty data: %q", out)
	}
	// A node written with null data (as Kafka's createPersistent(path) does) prints "null".
	c, err := zkclient.New(connect, zktest.SessionTimeout, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CreatePersistent("/nulldata", nil, false); err != nil {
		t.Fatal(err)
	}
	out, _, _ = shell(t, connect, "", "get", "/nulldata")
	if !strings.HasSuffix(out, connected+"null\n") {
		t.Errorf("get null data: %q", out)
	}
	_, errOut, code = shell(t, connect, "", "get", "/nope")
	if code != 0 || errOut != "Node does not exist: /nope\n" {
		t.Errorf("missing: %d %q", code, errOut)
	}
	_, errOut, _ = shell(t, connect, "", "delete", "/brokers")
	if errOut != "Node not empty: /brokers\n" {
		t.Errorf("delete non-empty: %q", errOut)
	}
	_, errOut, _ = shell(t, connect, "", "create", "-s", "/brokers/seq-", "x")
	if errOut != "Created /brokers/seq-0000000002\n" {
		t.Errorf("sequential: %q", errOut)
	}
	shell(t, connect, "", "delete", "/brokers/seq-0000000002")
	shell(t, connect, "", "rmr", "/brokers/ids")
	out, _, _ = shell(t, connect, "", "ls", "/brokers")
	if !strings.HasSuffix(out, "[topics]\n") {
		t.Errorf("after rmr: %q", out)
	}
	_, errOut, _ = shell(t, connect, "", "bogus")
	if !strings.HasPrefix(errOut, "ZooKeeper -server host:port cmd args\n\tconnect host:port\n") {
		t.Errorf("usage: %q", errOut)
	}
}

func TestCommandsFromStdin(t *testing.T) {
	connect := zktest.Chroot(t)
	servers, chroot := zktest.SplitConnect(connect)
	root := strings.Join(servers, ",")
	out, errOut, code := shell(t, root, "create "+chroot+" x\nls "+chroot+"\n\nget "+chroot+"\nquit\nls /\n")
	want := "Connecting to " + root + "\n" + connected + "Welcome to ZooKeeper!\nJLine support is disabled\n[]\nx\nQuitting...\n"
	if code != 0 || out != want || !strings.HasPrefix(errOut, "Created "+chroot+"\ncZxid = ") {
		t.Errorf("exit %d\n%q\nwant\n%q\nstderr %q", code, out, want, errOut)
	}
}

func TestUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), nil, &out, &errOut); code != 1 || out.String() != Usage+"\n" {
		t.Errorf("no args: %d %q", code, out.String())
	}
}
