package zkclient

import (
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"reflect"
	"testing"

	"github.com/zkafka/zkafka/zk/zktest"
)

// digestID is the id ZooKeeper's DigestAuthenticationProvider gives user:password.
func digestID(user, password string) string {
	sum := sha1.Sum([]byte(user + ":" + password))
	return user + ":" + base64.StdEncoding.EncodeToString(sum[:])
}

// TestAuthAndACL creates znodes from a digest-authenticated client with CREATOR_ALL + world READ
// (and CREATOR_ALL alone on one path), reads the ACLs back, and checks what an unauthenticated
// and a wrongly authenticated session may do; SetACL opens them again.
func TestAuthAndACL(t *testing.T) {
	connect := zktest.Chroot(t)
	secure := func(path string) []ACL {
		if path == "/secret" {
			return CreatorAllACL()
		}
		return append(CreatorAllACL(), ReadACLUnsafe()...)
	}
	owner := newTestClient(t, connect, WithAuth("digest", []byte("kafka:pw")), WithACL(secure))
	// Cleanups run last-in first-out: open the tree again before the harness deletes it.
	t.Cleanup(func() {
		for _, p := range []string{"/", "/a/b", "/a", "/secret", "/e"} {
			_ = owner.SetACL(p, OpenACLUnsafe(), -1)
		}
	})
	if err := owner.CreatePersistent("/a/b", []byte("x"), true); err != nil {
		t.Fatal(err)
	}
	if err := owner.CreatePersistent("/secret", []byte("s"), false); err != nil {
		t.Fatal(err)
	}
	if err := owner.CreateEphemeral("/e", nil); err != nil {
		t.Fatal(err)
	}
	creator := ACL{Perms: PermAll, Scheme: "digest", ID: digestID("kafka", "pw")}
	read := ACL{Perms: PermRead, Scheme: "world", ID: "anyone"}
	for path, want := range map[string][]ACL{"/a": {creator, read}, "/a/b": {creator, read}, "/e": {creator, read}, "/secret": {creator}} {
		got, _, err := owner.GetACL(path)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("GetACL(%s) = %+v, %v; want %+v", path, got, err, want)
		}
	}
	// The chroot itself was created by New's separate connection with the same login and ACL.
	anon := newTestClient(t, connect)
	other := newTestClient(t, connect, WithAuth("digest", []byte("kafka:wrong")))
	for _, c := range []*Client{anon, other} {
		if data, _, err := c.ReadData("/a/b"); err != nil || string(data) != "x" {
			t.Errorf("world read of /a/b: %q %v", data, err)
		}
		if _, _, err := c.ReadData("/secret"); !errors.Is(err, ErrNoAuth) {
			t.Errorf("read of /secret: %v, want ErrNoAuth", err)
		}
		if err := c.WriteData("/a/b", []byte("y")); !errors.Is(err, ErrNoAuth) {
			t.Errorf("write of /a/b: %v, want ErrNoAuth", err)
		}
		if _, err := c.Delete("/a/b"); !errors.Is(err, ErrNoAuth) {
			t.Errorf("delete of /a/b: %v, want ErrNoAuth", err)
		}
		if err := c.CreatePersistent("/a/c", nil, false); !errors.Is(err, ErrNoAuth) {
			t.Errorf("create below /a: %v, want ErrNoAuth", err)
		}
	}
	// CREATOR_ALL from a session without a login is refused.
	anonSecure := newTestClient(t, connect, WithACL(secure))
	if got, _, err := owner.GetACL("/"); err != nil || !reflect.DeepEqual(got, []ACL{creator, read}) {
		t.Errorf("GetACL of the chroot = %+v, %v", got, err)
	}
	// ZooKeeper (3.6+, ZOOKEEPER-1392) hides the digest from a session without ADMIN permission.
	redacted := ACL{Perms: PermAll, Scheme: "digest", ID: "kafka:x"}
	if got, _, err := anonSecure.GetACL("/"); err != nil || !reflect.DeepEqual(got, []ACL{redacted, read}) {
		t.Errorf("GetACL of the chroot = %+v, %v", got, err)
	}
	if err := anonSecure.CreatePersistent("/x", nil, false); !errors.Is(err, ErrInvalidACL) {
		t.Errorf("CREATOR_ALL without login: %v, want ErrInvalidACL", err)
	}
	if err := owner.WriteData("/a/b", []byte("z")); err != nil {
		t.Errorf("owner write: %v", err)
	}
	if err := owner.SetACL("/a/b", OpenACLUnsafe(), -1); err != nil {
		t.Fatal(err)
	}
	if err := anon.WriteData("/a/b", []byte("w")); err != nil {
		t.Errorf("write after SetACL(open): %v", err)
	}
}

// TestAuthSurvivesSessionExpiry: after its session expires, a logged-in client's new session is
// logged in again before any request, so it can still write its CREATOR_ALL znodes and create
// new ones (a create with CREATOR_ALL from a session without login is InvalidACL).
func TestAuthSurvivesSessionExpiry(t *testing.T) {
	connect := zktest.Chroot(t)
	capture := zktest.NewSessionCapture()
	secure := func(string) []ACL { return append(CreatorAllACL(), ReadACLUnsafe()...) }
	c := newTestClient(t, connect, WithDialer(capture.Dial), WithAuth("digest", []byte("kafka:pw")), WithACL(secure))
	t.Cleanup(func() {
		for _, p := range []string{"/", "/p", "/q"} {
			_ = c.SetACL(p, OpenACLUnsafe(), -1)
		}
	})
	if err := c.CreatePersistent("/p", []byte("1"), false); err != nil {
		t.Fatal(err)
	}
	old := c.SessionID()
	zktest.ExpireSession(t, capture)
	zktest.WaitUntilTrue(t, func() bool { return c.SessionID() != old && c.SessionID() != 0 }, "no new session", waitTimeout)
	if err := c.WriteData("/p", []byte("2")); err != nil {
		t.Errorf("write after expiry: %v", err)
	}
	if err := c.CreatePersistent("/q", nil, false); err != nil {
		t.Errorf("CREATOR_ALL create after expiry: %v", err)
	}
}
