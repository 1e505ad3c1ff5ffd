package zkclient

import (
	"errors"

	gozk "github.com/go-zookeeper/zk"
)

// zkError is one of I0Itec's ZkException subclasses. It unwraps to the
// go-zookeeper error it stands for, so errors.Is works with either sentinel.
type zkError struct {
	name  string
	cause error
}

func (e *zkError) Error() string { return e.name + ": " + e.cause.Error() }
func (e *zkError) Unwrap() error { return e.cause }

// Sentinel errors, named after I0Itec's exceptions. Operations wrap them with the
// path (fmt.Errorf("...: %w")), so test with errors.Is.
var (
	// ErrNoNode is org.I0Itec.zkclient.exception.ZkNoNodeException.
	ErrNoNode error = &zkError{"ZkNoNodeException", gozk.ErrNoNode}
	// ErrNodeExists is org.I0Itec.zkclient.exception.ZkNodeExistsException.
	ErrNodeExists error = &zkError{"ZkNodeExistsException", gozk.ErrNodeExists}
	// ErrBadVersion is org.I0Itec.zkclient.exception.ZkBadVersionException.
	ErrBadVersion error = &zkError{"ZkBadVersionException", gozk.ErrBadVersion}
	// ErrNotEmpty is KeeperException.NotEmptyException (delete of a node with children).
	ErrNotEmpty error = &zkError{"ZkException(NotEmpty)", gozk.ErrNotEmpty}
	// ErrSessionExpired is KeeperException.SessionExpiredException. Operations retry
	// through it; ZKCheckedEphemeral sees it when it runs without retries.
	ErrSessionExpired error = &zkError{"ZkException(SessionExpired)", gozk.ErrSessionExpired}
	// ErrNoChildrenForEphemerals is KeeperException.NoChildrenForEphemeralsException.
	ErrNoChildrenForEphemerals error = &zkError{"ZkException(NoChildrenForEphemerals)", gozk.ErrNoChildrenForEphemerals}
	// ErrNoAuth is KeeperException.NoAuthException: the znode's ACL refuses this session.
	ErrNoAuth error = &zkError{"ZkException(NoAuth)", gozk.ErrNoAuth}
	// ErrInvalidACL is KeeperException.InvalidACLException (e.g. CREATOR_ALL from a session that
	// has not authenticated).
	ErrInvalidACL error = &zkError{"ZkException(InvalidACL)", gozk.ErrInvalidACL}
	// ErrTimeout is org.I0Itec.zkclient.exception.ZkTimeoutException: no connection
	// within the connection timeout.
	ErrTimeout = errors.New("ZkTimeoutException: unable to connect to zookeeper server within timeout")
	// ErrClosed is returned by every operation once Close has been called
	// (I0Itec's ZkInterruptedException / IllegalStateException after close).
	ErrClosed = errors.New("zkclient: client is closed")
)

// translate maps a go-zookeeper error onto the sentinel above that wraps it.
func translate(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gozk.ErrNoNode):
		return ErrNoNode
	case errors.Is(err, gozk.ErrNodeExists):
		return ErrNodeExists
	case errors.Is(err, gozk.ErrBadVersion):
		return ErrBadVersion
	case errors.Is(err, gozk.ErrNotEmpty):
		return ErrNotEmpty
	case errors.Is(err, gozk.ErrSessionExpired):
		return ErrSessionExpired
	case errors.Is(err, gozk.ErrNoChildrenForEphemerals):
		return ErrNoChildrenForEphemerals
	case errors.Is(err, gozk.ErrNoAuth):
		return ErrNoAuth
	case errors.Is(err, gozk.ErrInvalidACL):
		return ErrInvalidACL
	}
	return err
}

// isConnectionLoss reports the errors I0Itec's retryUntilConnected retries on:
// ConnectionLoss and SessionExpired (go-zookeeper also reports "no server" when
// it has cycled through the whole server list without success).
func isConnectionLoss(err error) bool {
	return errors.Is(err, gozk.ErrConnectionClosed) ||
		errors.Is(err, gozk.ErrNoServer) ||
		errors.Is(err, gozk.ErrSessionExpired) ||
		errors.Is(err, gozk.ErrSessionMoved) ||
		errors.Is(err, gozk.ErrClosing)
}

// IsConnectionLoss reports whether err means the request may not have reached
// ZooKeeper or its answer was lost (connection closed, no server reachable,
// session moved or expired): the cases RetryUntilConnected retries.
func IsConnectionLoss(err error) bool { return isConnectionLoss(err) }
