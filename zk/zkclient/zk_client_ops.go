package zkclient

import (
	"errors"
	"sort"
	"strings"

	gozk "github.com/go-zookeeper/zk"
)

// openACL is ZooDefs.Ids.OPEN_ACL_UNSAFE, the ACL Kafka uses without
// zookeeper.set.acl.
var openACL = gozk.WorldACL(gozk.PermAll)

// CreatePersistent creates a persistent node. With createParents, missing parents
// are created first (with null data) and an existing node at path is not an
// error: that is I0Itec's createPersistent(path, createParents), which Kafka uses
// for "make sure this path exists". Without createParents an existing node gives
// ErrNodeExists and a missing parent ErrNoNode.
func (c *Client) CreatePersistent(path string, data []byte, createParents bool) error {
	_, err := c.create(path, data, 0)
	if err == nil {
		return nil
	}
	if !createParents {
		return err
	}
	if errors.Is(err, ErrNodeExists) {
		return nil
	}
	if !errors.Is(err, ErrNoNode) {
		return err
	}
	parent := parentOf(path)
	if parent != "" {
		if err := c.CreatePersistent(parent, nil, true); err != nil {
			return err
		}
	}
	if _, err := c.create(path, data, 0); err != nil && !errors.Is(err, ErrNodeExists) {
		return err
	}
	return nil
}

// CreateEphemeral creates an ephemeral node owned by this session. Parents must
// exist (ErrNoNode otherwise).
func (c *Client) CreateEphemeral(path string, data []byte) error {
	_, err := c.create(path, data, gozk.FlagEphemeral)
	return err
}

// CreatePersistentSequential creates path<10-digit counter> and returns the name
// ZooKeeper chose (relative to the chroot).
func (c *Client) CreatePersistentSequential(path string, data []byte) (string, error) {
	return c.create(path, data, gozk.FlagSequence)
}

// CreateEphemeralSequential is the ephemeral variant of CreatePersistentSequential.
func (c *Client) CreateEphemeralSequential(path string, data []byte) (string, error) {
	return c.create(path, data, gozk.FlagEphemeral|gozk.FlagSequence)
}

// CreateEphemeralOnce creates an ephemeral node with exactly one attempt: no
// retry on connection loss or expiry. ZKCheckedEphemeral drives its own retries
// through it, as Kafka's does with the raw ZooKeeper handle.
func (c *Client) CreateEphemeralOnce(path string, data []byte) error {
	if c.isClosed() {
		return ErrClosed
	}
	_, err := c.conn.Create(c.fullPath(path), data, gozk.FlagEphemeral, c.aclFor(path))
	return opErr("create", path, err)
}

// ReadDataOnce reads a node with one attempt (see CreateEphemeralOnce).
func (c *Client) ReadDataOnce(path string) ([]byte, *Stat, error) {
	if c.isClosed() {
		return nil, nil, ErrClosed
	}
	data, st, err := c.conn.Get(c.fullPath(path))
	if err != nil {
		return nil, nil, opErr("getData", path, err)
	}
	return data, toStat(st), nil
}

func (c *Client) create(path string, data []byte, flags int32) (string, error) {
	var created string
	err := c.RetryUntilConnected(func() error {
		var err error
		created, err = c.conn.Create(c.fullPath(path), data, flags, c.aclFor(path))
		return err
	})
	if err != nil {
		return "", opErr("create", path, err)
	}
	p, _ := c.clientPath(created)
	return p, nil
}

// ReadData returns the data (nil for a null value) and Stat of path, or
// ErrNoNode.
func (c *Client) ReadData(path string) ([]byte, *Stat, error) {
	var data []byte
	var st *gozk.Stat
	err := c.RetryUntilConnected(func() error {
		var err error
		data, st, err = c.conn.Get(c.fullPath(path))
		return err
	})
	if err != nil {
		return nil, nil, opErr("getData", path, err)
	}
	return data, toStat(st), nil
}

// ReadDataMaybeNull is ReadData where a missing node is not an error: it returns
// exists=false (ZkUtils.readDataMaybeNull).
func (c *Client) ReadDataMaybeNull(path string) (data []byte, st *Stat, exists bool, err error) {
	data, st, err = c.ReadData(path)
	if errors.Is(err, ErrNoNode) {
		return nil, &Stat{}, false, nil
	}
	if err != nil {
		return nil, nil, false, err
	}
	return data, st, true, nil
}

// Exists reports whether path exists.
func (c *Client) Exists(path string) (bool, error) {
	var ok bool
	err := c.RetryUntilConnected(func() error {
		var err error
		ok, _, err = c.conn.Exists(c.fullPath(path))
		return err
	})
	return ok, opErr("exists", path, err)
}

// GetChildren returns the names of path's children (unsorted, as ZooKeeper gives
// them), or ErrNoNode.
func (c *Client) GetChildren(path string) ([]string, error) {
	var children []string
	err := c.RetryUntilConnected(func() error {
		var err error
		children, _, err = c.conn.Children(c.fullPath(path))
		return err
	})
	if err != nil {
		return nil, opErr("getChildren", path, err)
	}
	return children, nil
}

// CountChildren is the number of children, 0 when path does not exist.
func (c *Client) CountChildren(path string) (int, error) {
	children, err := c.GetChildren(path)
	if errors.Is(err, ErrNoNode) {
		return 0, nil
	}
	return len(children), err
}

// WriteData sets path's data whatever its version (ErrNoNode if missing).
func (c *Client) WriteData(path string, data []byte) error {
	_, err := c.WriteDataConditional(path, data, -1)
	return err
}

// WriteDataConditional sets path's data if its version is expectedVersion (-1 for
// any) and returns the new version; ErrBadVersion or ErrNoNode otherwise.
//
// Kafka 0.10.2: ZkClient.writeDataReturnStat.
func (c *Client) WriteDataConditional(path string, data []byte, expectedVersion int32) (int32, error) {
	var st *gozk.Stat
	err := c.RetryUntilConnected(func() error {
		var err error
		st, err = c.conn.Set(c.fullPath(path), data, expectedVersion)
		return err
	})
	if err != nil {
		return -1, opErr("setData", path, err)
	}
	return st.Version, nil
}

// Delete removes path; it returns false (and no error) when the node did not
// exist, as I0Itec's delete(path) does.
func (c *Client) Delete(path string) (bool, error) {
	err := c.DeleteConditional(path, -1)
	if errors.Is(err, ErrNoNode) {
		return false, nil
	}
	return err == nil, err
}

// DeleteConditional removes path if its version is expectedVersion (-1 for any);
// ErrBadVersion, ErrNoNode or ErrNotEmpty otherwise.
func (c *Client) DeleteConditional(path string, expectedVersion int32) error {
	err := c.RetryUntilConnected(func() error {
		return c.conn.Delete(c.fullPath(path), expectedVersion)
	})
	return opErr("delete", path, err)
}

// DeleteRecursive removes path and everything below it. A missing path counts as
// deleted (true).
func (c *Client) DeleteRecursive(path string) (bool, error) {
	children, err := c.GetChildren(path)
	if errors.Is(err, ErrNoNode) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	sort.Strings(children)
	for _, child := range children {
		if _, err := c.DeleteRecursive(childPath(path, child)); err != nil {
			return false, err
		}
	}
	if _, err := c.Delete(path); err != nil {
		return false, err
	}
	return true, nil
}

func parentOf(path string) string {
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return ""
	}
	return path[:i]
}

func childPath(parent, child string) string {
	if parent == "/" {
		return "/" + child
	}
	return parent + "/" + child
}
