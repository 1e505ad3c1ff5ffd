package zkutils

import (
	"reflect"
	"testing"

	"github.com/zkafka/zkafka/zk/zkclient"
)

func TestDefaultAcls(t *testing.T) {
	open := []zkclient.ACL{{Perms: zkclient.PermAll, Scheme: "world", ID: "anyone"}}
	creator := zkclient.ACL{Perms: zkclient.PermAll, Scheme: "auth", ID: ""}
	read := zkclient.ACL{Perms: zkclient.PermRead, Scheme: "world", ID: "anyone"}
	cases := []struct {
		secure bool
		path   string
		want   []zkclient.ACL
	}{
		{false, "/brokers/ids/0", open},
		{false, "/config/users/alice", open},
		{true, "/brokers/ids/0", []zkclient.ACL{creator, read}},
		{true, "/config/topics/t", []zkclient.ACL{creator, read}},
		{true, "/config/users", []zkclient.ACL{creator}},
		{true, "/config/users/alice", []zkclient.ACL{creator}},
		{true, "/config/usersX", []zkclient.ACL{creator}}, // 0.10.2's plain prefix test
	}
	for _, c := range cases {
		if got := DefaultAcls(c.secure, c.path); !reflect.DeepEqual(got, c.want) {
			t.Errorf("DefaultAcls(%v, %s) = %+v, want %+v", c.secure, c.path, got, c.want)
		}
	}
	// A secure client leaves /consumers open for old consumers without a ZooKeeper login.
	if got := createACL(true)(ConsumersPath); !reflect.DeepEqual(got, open) {
		t.Errorf("createACL(true)(/consumers) = %+v", got)
	}
	if got := createACL(true)(ConsumersPath + "/g/ids/c"); !reflect.DeepEqual(got, []zkclient.ACL{creator, read}) {
		t.Errorf("createACL(true)(/consumers/g/ids/c) = %+v", got)
	}
}
