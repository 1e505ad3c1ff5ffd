package zkclient

import (
	gozk "github.com/go-zookeeper/zk"
)

// ACL is one ZooKeeper access control entry: permission bits for an id of a scheme
// (org.apache.zookeeper.data.ACL).
type ACL = gozk.ACL

// The ZooKeeper permission bits (ZooDefs.Perms).
const (
	PermRead   = gozk.PermRead
	PermWrite  = gozk.PermWrite
	PermCreate = gozk.PermCreate
	PermDelete = gozk.PermDelete
	PermAdmin  = gozk.PermAdmin
	PermAll    = gozk.PermAll
)

// OpenACLUnsafe is ZooDefs.Ids.OPEN_ACL_UNSAFE: everyone may do everything.
func OpenACLUnsafe() []ACL { return gozk.WorldACL(gozk.PermAll) }

// CreatorAllACL is ZooDefs.Ids.CREATOR_ALL_ACL: all permissions for the ids the creating
// session authenticated as (the "auth" scheme, which ZooKeeper expands at create time).
func CreatorAllACL() []ACL { return gozk.AuthACL(gozk.PermAll) }

// ReadACLUnsafe is ZooDefs.Ids.READ_ACL_UNSAFE: everyone may read.
func ReadACLUnsafe() []ACL { return gozk.WorldACL(gozk.PermRead) }

// WithAuth makes the session authenticate with scheme and auth (ZooKeeper.addAuthInfo) before
// New returns, and again after every reconnect. zkafka's ZooKeeper login is the "digest" scheme
// with "user:password".
func WithAuth(scheme string, auth []byte) Option {
	return func(o *options) { o.authScheme, o.auth = scheme, auth }
}

// WithACL sets the ACL every create of this client (and the creation of a missing chroot) uses:
// acl is called with the path as the caller named it (below the chroot). Without it znodes get
// OPEN_ACL_UNSAFE, as I0Itec's createPersistent(path) does.
func WithACL(acl func(path string) []ACL) Option { return func(o *options) { o.acl = acl } }

// aclFor is the ACL a create of path uses.
func (c *Client) aclFor(path string) []ACL {
	if c.acl == nil {
		return openACL
	}
	return c.acl(path)
}

// GetACL reads path's ACL and stat (ZooKeeper.getACL).
func (c *Client) GetACL(path string) ([]ACL, *Stat, error) {
	var acl []ACL
	var st *gozk.Stat
	err := c.RetryUntilConnected(func() error {
		var err error
		acl, st, err = c.conn.GetACL(c.fullPath(path))
		return err
	})
	if err != nil {
		return nil, nil, opErr("getACL", path, err)
	}
	return acl, toStat(st), nil
}

// SetACL replaces path's ACL if its ACL version is expectedVersion (-1 for any)
// (ZooKeeper.setACL).
func (c *Client) SetACL(path string, acl []ACL, expectedVersion int32) error {
	err := c.RetryUntilConnected(func() error {
		_, err := c.conn.SetACL(c.fullPath(path), acl, expectedVersion)
		return err
	})
	return opErr("setACL", path, err)
}
