package acls

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/zk/zktest"
)

func TestMain(m *testing.M) { os.Exit(zktest.Main(m, 1)) }

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	rc := Run(context.Background(), args, &out, &errOut)
	return rc, out.String(), errOut.String()
}

// TestAddListRemove drives kafka-acls through add (plain and --producer/--consumer), list and
// remove, checking 0.10.2's output text and the znodes it leaves.
func TestAddListRemove(t *testing.T) {
	zk := "zookeeper.connect=" + zktest.Chroot(t)
	rc, out, errOut := run(t, "--authorizer-properties", zk, "--add", "--allow-principal", "User:alice", "--allow-principal", "User:bob",
		"--operation", "Read", "--topic", "t1")
	if rc != 0 {
		t.Fatalf("%d %s %s", rc, out, errOut)
	}
	want := "Adding ACLs for resource `Topic:t1`: \n" +
		" \tUser:alice has Allow permission for operations: Read from hosts: *\n\tUser:bob has Allow permission for operations: Read from hosts: * \n\n" +
		"Current ACLs for resource `Topic:t1`: \n" +
		" \tUser:alice has Allow permission for operations: Read from hosts: *\n\tUser:bob has Allow permission for operations: Read from hosts: * \n\n"
	if out != want {
		t.Fatalf("add output:\n%q\nwant\n%q", out, want)
	}

	rc, out, _ = run(t, "--authorizer-properties", zk, "--add", "--allow-principal", "User:carol", "--producer", "--consumer", "--topic", "t2", "--group", "g")
	if rc != 0 {
		t.Fatal(out)
	}
	for _, s := range []string{
		"Current ACLs for resource `Topic:t2`: \n \tUser:carol has Allow permission for operations: Describe from hosts: *\n\tUser:carol has Allow permission for operations: Read from hosts: *\n\tUser:carol has Allow permission for operations: Write from hosts: * \n",
		"Adding ACLs for resource `Cluster:kafka-cluster`: \n \tUser:carol has Allow permission for operations: Create from hosts: * \n",
		"Current ACLs for resource `Group:g`: \n \tUser:carol has Allow permission for operations: Read from hosts: * \n",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("missing %q in\n%s", s, out)
		}
	}

	rc, out, _ = run(t, "--authorizer-properties", zk, "--list")
	if rc != 0 || strings.Count(out, "Current ACLs for resource") != 4 {
		t.Fatalf("list: %d\n%s", rc, out)
	}

	rc, out, _ = run(t, "--authorizer-properties", zk, "--remove", "--force", "--allow-principal", "User:bob", "--operation", "Read", "--topic", "t1")
	if rc != 0 || !strings.HasSuffix(out, "Current ACLs for resource `Topic:t1`: \n \tUser:alice has Allow permission for operations: Read from hosts: * \n\n") {
		t.Fatalf("remove: %d\n%q", rc, out)
	}
	// Without --force the confirmation is read; "n" keeps the ACLs.
	Stdin = strings.NewReader("n\n")
	defer func() { Stdin = os.Stdin }()
	rc, out, _ = run(t, "--authorizer-properties", zk, "--remove", "--topic", "t1")
	if rc != 0 || !strings.Contains(out, "Are you sure you want to delete all ACLs for resource `Topic:t1`? (y/n)") || !strings.Contains(out, "User:alice") {
		t.Fatalf("declined remove: %d\n%s", rc, out)
	}
	Stdin = strings.NewReader("y\n")
	if rc, out, _ = run(t, "--authorizer-properties", zk, "--remove", "--topic", "t1"); rc != 0 || strings.Contains(out, "User:alice") {
		t.Fatalf("confirmed remove: %d\n%s", rc, out)
	}
}

func TestUsageErrors(t *testing.T) {
	zk := "zookeeper.connect=" + zktest.Chroot(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--add"}, `Missing required argument "[authorizer-properties]"`},
		{[]string{"--authorizer-properties", zk, "--add", "--list", "--topic", "t"}, "Command must include exactly one action: --list, --add, --remove. "},
		{[]string{"--authorizer-properties", zk, "--add", "--topic", "t"}, "You must specify one of: --allow-principal, --deny-principal when trying to add ACLs."},
		{[]string{"--authorizer-properties", zk, "--add", "--allow-principal", "User:a"}, "You must provide at least one resource: --topic <topic> or --cluster or --group <group>"},
		{[]string{"--authorizer-properties", zk, "--add", "--allow-principal", "User:a", "--operation", "Write", "--group", "g"}, "ResourceType Group only supports operations Read,Describe,All"},
		{[]string{"--authorizer-properties", zk, "--add", "--allow-principal", "User:a", "--producer"}, "With --producer you must specify a --topic"},
		{[]string{"--authorizer-properties", zk, "--add", "--allow-principal", "User:a", "--consumer", "--topic", "t"}, "With --consumer you must specify a --topic and a --group and no --cluster option should be specified."},
	} {
		rc, _, errOut := run(t, c.args...)
		if rc == 0 || !strings.HasPrefix(errOut, c.want) {
			t.Errorf("%v: %d %q, want %q", c.args, rc, errOut, c.want)
		}
	}
	rc, out, _ := run(t, "--authorizer-properties", zk, "--add", "--allow-principal", "User:a", "--operation", "Fly", "--topic", "t")
	if rc == 0 || !strings.Contains(out, "Error while executing ACL command: Fly not a valid operation name.") {
		t.Errorf("%d %s", rc, out)
	}
}
