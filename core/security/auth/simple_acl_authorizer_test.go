package auth

import (
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

func TestMain(m *testing.M) { os.Exit(zktest.Main(m, 1, goleak.IgnoreCurrent())) }

func quiet() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return logrus.NewEntry(l)
}

func connect(t *testing.T, c string) *zkutils.ZkUtils {
	t.Helper()
	z, err := zkutils.Connect(c, zktest.SessionTimeout, 20*time.Second, false, quiet(), common.SystemTime{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(z.Close)
	return z
}

func newAuthorizer(t *testing.T, z *zkutils.ZkUtils, props map[string]string) *SimpleAclAuthorizer {
	t.Helper()
	a, err := NewSimpleAclAuthorizer(z, props, quiet(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

func session(principal, ip string) network.Session {
	return network.Session{Principal: principal, ClientAddr: &net.TCPAddr{IP: net.ParseIP(ip), Port: 5000}}
}

// TestAuthorizeTable runs 0.10.2's decision rules (SimpleAclAuthorizer.authorize) over operations
// x resources x principals x hosts, with ACLs written by one authorizer (as kafka-acls writes
// them) and decided by another that learns them from /kafka-acl-changes.
func TestAuthorizeTable(t *testing.T) {
	c := zktest.Chroot(t)
	writer := newAuthorizer(t, connect(t, c), nil)
	broker := newAuthorizer(t, connect(t, c), map[string]string{SuperUsersProp: "User:admin; User:root"})
	foo, bar := Resource{Topic, "foo"}, Resource{Topic, "bar"}
	grp := Resource{Group, "g"}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(writer.AddAcls([]Acl{{"User:alice", Allow, "*", Read}, {"User:alice", Allow, "*", Write}}, foo))
	must(writer.AddAcls([]Acl{{"User:bob", Allow, "*", All}, {"User:bob", Deny, "10.0.0.9", Write}}, foo))
	must(writer.AddAcls([]Acl{{"User:*", Allow, "*", Describe}}, Resource{Topic, WildCardResource}))
	must(writer.AddAcls([]Acl{{"User:alice", Allow, "*", Read}}, grp))
	must(writer.AddAcls([]Acl{{"User:carol", Allow, "127.0.0.1", ClusterAction}, {"User:carol", Allow, "*", Create}}, ClusterResource))
	zktest.WaitUntilTrue(t, func() bool { return len(broker.GetAcls(ClusterResource)) == 2 }, "the broker's cache follows the notifications", 20*time.Second)

	cases := []struct {
		principal, host string
		op              Operation
		r               Resource
		want            bool
	}{
		{"User:alice", "127.0.0.1", Read, foo, true},
		{"User:alice", "127.0.0.1", Write, foo, true},
		{"User:alice", "127.0.0.1", Delete, foo, false},
		{"User:alice", "127.0.0.1", Describe, foo, true}, // implied by Read/Write, and the wildcard
		{"User:alice", "127.0.0.1", Alter, foo, false},
		{"User:alice", "127.0.0.1", Read, bar, false}, // bar has only the wildcard's Describe
		{"User:alice", "127.0.0.1", Describe, bar, true},
		{"User:dave", "127.0.0.1", Describe, bar, true}, // User:* on Topic:*
		{"User:dave", "127.0.0.1", Read, foo, false},
		{"User:bob", "127.0.0.1", Alter, foo, true},  // All
		{"User:bob", "127.0.0.1", Write, foo, true},  // All from another host
		{"User:bob", "10.0.0.9", Write, foo, false},  // Deny wins
		{"User:bob", "10.0.0.9", Read, foo, true},    // Deny is for Write only
		{"User:alice", "127.0.0.1", Read, grp, true}, //
		{"User:bob", "127.0.0.1", Read, grp, false},  //
		{"User:carol", "127.0.0.1", ClusterAction, ClusterResource, true},
		{"User:carol", "10.1.1.1", ClusterAction, ClusterResource, false}, // host-bound
		{"User:carol", "10.1.1.1", Create, ClusterResource, true},
		{"User:alice", "127.0.0.1", Create, ClusterResource, false},
		{"User:admin", "10.1.1.1", ClusterAction, ClusterResource, true}, // super user
		{"User:root", "10.1.1.1", Delete, bar, true},
		{"User:ANONYMOUS", "127.0.0.1", Read, Resource{Group, "other"}, false}, // no ACLs, default deny
	}
	for _, c := range cases {
		if got := broker.Authorize(session(c.principal, c.host), c.op, c.r); got != c.want {
			t.Errorf("%s@%s %s %s = %v, want %v", c.principal, c.host, c.op, c.r, got, c.want)
		}
	}

	// allow.everyone.if.no.acl.found lets anyone at a resource without ACLs, not at one with them.
	open := newAuthorizer(t, connect(t, c), map[string]string{AllowEveryoneIfNoAclIsFoundProp: "true"})
	if !open.Authorize(session("User:x", "1.2.3.4"), Read, Resource{Group, "other"}) || open.Authorize(session("User:x", "1.2.3.4"), Read, grp) {
		t.Error("allow.everyone.if.no.acl.found")
	}

	// The znode is 0.10.2's JSON, byte for byte.
	data, _, err := connect(t, c).ReadData("/kafka-acl/Group/g")
	if err != nil || string(data) != `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"}]}` {
		t.Fatalf("%s %v", data, err)
	}

	// Removal: the last ACL deletes the node, and the broker's cache follows.
	if ok, err := writer.RemoveAcls([]Acl{{"User:alice", Allow, "*", Read}}, grp); !ok || err != nil {
		t.Fatal(ok, err)
	}
	zktest.WaitUntilTrue(t, func() bool { return !broker.Authorize(session("User:alice", "127.0.0.1"), Read, grp) }, "removal reaches the broker", 20*time.Second)
	if _, _, ok, _ := connect(t, c).ReadDataMaybeNull("/kafka-acl/Group/g"); ok {
		t.Error("/kafka-acl/Group/g left after its last ACL was removed")
	}
	if ok, err := writer.RemoveResource(foo); !ok || err != nil {
		t.Fatal(ok, err)
	}
	zktest.WaitUntilTrue(t, func() bool { return len(broker.GetAcls(foo)) == 0 }, "resource removal reaches the broker", 20*time.Second)

	// A restarted broker loads what is there.
	fresh := newAuthorizer(t, connect(t, c), nil)
	if len(fresh.GetAllAcls()) != 2 || !fresh.Authorize(session("User:carol", "127.0.0.1"), ClusterAction, ClusterResource) {
		t.Errorf("loaded %v", fresh.GetAllAcls())
	}
}

func TestParsing(t *testing.T) {
	if _, err := OperationFromString("fly"); err == nil || err.Error() != "fly not a valid operation name. The valid names are Read,Write,Create,Delete,Alter,Describe,ClusterAction,All" {
		t.Error(err)
	}
	if r, err := ResourceFromString("topic:a:b"); err != nil || r != (Resource{Topic, "a:b"}) {
		t.Error(r, err)
	}
	if s := (Acl{"User:a", Allow, "*", Read}).String(); s != "User:a has Allow permission for operations: Read from hosts: *" {
		t.Error(s)
	}
}
