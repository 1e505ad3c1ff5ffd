package zkutils

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zkafka/zkafka/zk/zkclient"
)

// ZKCheckedEphemeral creates an ephemeral znode and, when the node already
// exists, looks at who owns it: if it is this very session (our own earlier
// create went through before the connection dropped), that is success.
//
// Kafka 0.10.2: kafka.utils.ZKCheckedEphemeral. Kafka's version runs on the raw
// ZooKeeper handle with async callbacks; here each step is one synchronous
// attempt (zkclient's *Once calls) and the loop below plays the callbacks'
// role. Parents are created persistent with empty (not null) data, as Kafka's
// createRecursive does.
//
// Difference: with ConflictTimeout > 0 a node owned by another session is not a
// failure straight away; Create polls until that node is gone (the old session
// expired) or the timeout passes. Kafka 0.10.2 fails immediately, which is
// ConflictTimeout = 0.
type ZKCheckedEphemeral struct {
	Path            string
	Data            []byte
	ZkUtils         *ZkUtils
	ConflictTimeout time.Duration
}

// conflictBackoff is the pause between two looks at a node held by another session.
const conflictBackoff = 100 * time.Millisecond

// Create runs the create; errors wrap zkclient.ErrNodeExists (held by another
// session), ErrNoNode, ErrSessionExpired or zkclient.ErrClosed.
func (e *ZKCheckedEphemeral) Create() error {
	z := e.ZkUtils
	z.log.Infof("Creating %s (is it secure? %t)", e.Path, z.IsSecure)
	if err := z.checkNamespace(); err != nil {
		return err
	}
	if err := e.createParents(); err != nil {
		return err
	}
	deadline := time.Now().Add(e.ConflictTimeout)
	for {
		err := e.createOnce()
		if err == nil {
			z.log.Infof("Result of znode creation at %s is: OK", e.Path)
			return nil
		}
		if !errors.Is(err, zkclient.ErrNodeExists) || !time.Now().Before(deadline) {
			z.log.Infof("Result of znode creation at %s is: %v", e.Path, err)
			return err
		}
		z.log.Infof("%s is held by another session; waiting for it to go away", e.Path)
		time.Sleep(conflictBackoff)
	}
}

// createParents creates every ancestor of Path, ignoring those that exist.
func (e *ZKCheckedEphemeral) createParents() error {
	c := e.ZkUtils.ZkClient
	parts := strings.Split(strings.TrimPrefix(e.Path, "/"), "/")
	prefix := ""
	for _, p := range parts[:len(parts)-1] {
		prefix += "/" + p
		err := c.CreatePersistent(prefix, []byte{}, false)
		if err != nil && !errors.Is(err, zkclient.ErrNodeExists) {
			return err
		}
	}
	return nil
}

// createOnce is one round of Kafka's callback chain: create; on NodeExists read
// the owner; on connection loss (or the node vanishing in between) go again.
func (e *ZKCheckedEphemeral) createOnce() error {
	c := e.ZkUtils.ZkClient
	for {
		err := c.CreateEphemeralOnce(e.Path, e.Data)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, zkclient.ErrClosed), errors.Is(err, zkclient.ErrSessionExpired):
			return err
		case isRetriable(err):
			c.WaitUntilConnected(-1)
			continue
		case errors.Is(err, zkclient.ErrNodeExists):
			_, st, rerr := c.ReadDataOnce(e.Path)
			switch {
			case rerr == nil:
				if st.EphemeralOwner == c.SessionID() {
					return nil
				}
				return fmt.Errorf("%s is owned by session 0x%x: %w", e.Path, st.EphemeralOwner, zkclient.ErrNodeExists)
			case errors.Is(rerr, zkclient.ErrNoNode):
				e.ZkUtils.log.Infof("The ephemeral node [%s] at %s has gone away while reading it", e.Data, e.Path)
				continue
			case errors.Is(rerr, zkclient.ErrClosed), errors.Is(rerr, zkclient.ErrSessionExpired):
				return rerr
			case isRetriable(rerr):
				c.WaitUntilConnected(-1)
				continue
			default:
				return rerr
			}
		default:
			return err
		}
	}
}

// isRetriable is a lost connection (Kafka's CONNECTIONLOSS branch); an expired
// session is handled before this is asked.
func isRetriable(err error) bool { return zkclient.IsConnectionLoss(err) }
