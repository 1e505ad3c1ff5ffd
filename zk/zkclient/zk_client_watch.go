package zkclient

import (
	"errors"
	"sort"

	gozk "github.com/go-zookeeper/zk"
)

// process receives every event go-zookeeper produces, on go-zookeeper's own
// goroutines. It must not block: it records state and queues work.
//
// Kafka 0.10.2: ZkClient.process (the ZooKeeper Watcher).
func (c *Client) process(ev gozk.Event) {
	if c.isClosed() {
		return
	}
	switch ev.Type {
	case gozk.EventSession:
		c.processStateChanged(ev.State)
	case gozk.EventNotWatching:
		// Watches invalidated by an expiry (or by Close); the new session re-arms
		// everything through fireAllEvents.
	case gozk.EventNodeCreated, gozk.EventNodeDeleted, gozk.EventNodeDataChanged, gozk.EventNodeChildrenChanged:
		path, ok := c.clientPath(ev.Path)
		if !ok {
			return
		}
		typ := ev.Type
		c.eventThread.send(ev.Type.String()+" "+path, func() { c.processDataOrChildChange(path, typ) })
	}
}

// processStateChanged maps go-zookeeper's connection states onto ZooKeeper's
// KeeperState and queues the listener calls. go-zookeeper reports TCP-level
// steps (Connecting, Connected) that the Java client does not: they are ignored.
func (c *Client) processStateChanged(s gozk.State) {
	var ks KeeperState
	switch s {
	case gozk.StateHasSession:
		ks = SyncConnected
	case gozk.StateDisconnected:
		ks = Disconnected
	case gozk.StateExpired:
		ks = Expired
	case gozk.StateAuthFailed:
		ks = AuthFailed
	default:
		return
	}

	c.stateMu.Lock()
	prev := c.keeperState
	newSession := false
	switch ks {
	case SyncConnected:
		c.hasSession = true
		newSession = c.expired
		c.expired = false
	case Expired:
		c.hasSession = false
		c.expired = true
	default:
		c.hasSession = false
	}
	// go-zookeeper reports Disconnected right after Expired; the Java client does
	// not, so that one is folded into Expired.
	if ks == Disconnected && prev == Expired {
		ks = Expired
	}
	c.keeperState = ks
	close(c.stateChanged)
	c.stateChanged = make(chan struct{})
	c.stateMu.Unlock()

	if ks == prev {
		return
	}
	c.log.Infof("zookeeper state changed (%s)", ks)
	c.eventThread.send("State changed to "+ks.String(), func() {
		for _, l := range c.stateListenersSnapshot() {
			if err := l.HandleStateChanged(ks); err != nil {
				c.log.WithError(err).Errorf("state listener failed on %s", ks)
			}
		}
	})
	if newSession {
		c.log.Info("new zookeeper session established")
		c.eventThread.send("New session", func() {
			for _, l := range c.stateListenersSnapshot() {
				if err := l.HandleNewSession(); err != nil {
					c.log.WithError(err).Error("state listener failed on new session")
				}
			}
		})
		c.fireAllEvents()
	}
}

// processDataOrChildChange runs on the event goroutine for one node event.
func (c *Client) processDataOrChildChange(path string, typ gozk.EventType) {
	if typ == gozk.EventNodeChildrenChanged || typ == gozk.EventNodeCreated || typ == gozk.EventNodeDeleted {
		c.fireChildChanged(path)
	}
	if typ == gozk.EventNodeDataChanged || typ == gozk.EventNodeCreated || typ == gozk.EventNodeDeleted {
		c.fireDataChanged(path)
	}
}

// fireAllEvents queues one child and one data event for every subscribed path:
// after a new session, watches must be re-armed and listeners may have missed
// changes.
func (c *Client) fireAllEvents() {
	c.listenersMu.Lock()
	childPaths := make([]string, 0, len(c.childListeners))
	for p := range c.childListeners {
		childPaths = append(childPaths, p)
	}
	dataPaths := make([]string, 0, len(c.dataListeners))
	for p := range c.dataListeners {
		dataPaths = append(dataPaths, p)
	}
	c.listenersMu.Unlock()
	sort.Strings(childPaths)
	sort.Strings(dataPaths)
	for _, p := range childPaths {
		c.eventThread.send("Children of "+p, func() { c.fireChildChanged(p) })
	}
	for _, p := range dataPaths {
		c.eventThread.send("Data of "+p, func() { c.fireDataChanged(p) })
	}
}

// fireChildChanged re-arms the child watch of path, reads the children and calls
// the listeners (with nil children when path is gone).
func (c *Client) fireChildChanged(path string) {
	listeners := c.childListenersSnapshot(path)
	if len(listeners) == 0 {
		return
	}
	children, err := c.watchForChilds(path)
	if err != nil {
		if !errors.Is(err, ErrClosed) {
			c.log.WithError(err).Errorf("re-arming child watch on %s failed", path)
		}
		return
	}
	for _, l := range listeners {
		if err := l.HandleChildChange(path, children); err != nil {
			c.log.WithError(err).Errorf("child listener on %s failed", path)
		}
	}
}

// fireDataChanged re-arms the data watch of path, reads it and calls the
// listeners' HandleDataChange, or HandleDataDeleted if it is gone.
func (c *Client) fireDataChanged(path string) {
	listeners := c.dataListenersSnapshot(path)
	if len(listeners) == 0 {
		return
	}
	data, exists, err := c.watchForData(path)
	if err != nil {
		if !errors.Is(err, ErrClosed) {
			c.log.WithError(err).Errorf("re-arming data watch on %s failed", path)
		}
		return
	}
	for _, l := range listeners {
		var err error
		if exists {
			err = l.HandleDataChange(path, data)
		} else {
			err = l.HandleDataDeleted(path)
		}
		if err != nil {
			c.log.WithError(err).Errorf("data listener on %s failed", path)
		}
	}
}

// watchForChilds sets an exists watch (to see the node appear or vanish) and a
// child watch, and returns the children, or nil if the node does not exist.
//
// Kafka 0.10.2: ZkClient.watchForChilds.
func (c *Client) watchForChilds(path string) ([]string, error) {
	full := c.fullPath(path)
	var children []string
	err := c.RetryUntilConnected(func() error {
		children = nil
		if _, _, _, err := c.conn.ExistsW(full); err != nil {
			return err
		}
		ch, _, _, err := c.conn.ChildrenW(full)
		if errors.Is(err, gozk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		if ch == nil {
			ch = []string{}
		}
		children = ch
		return nil
	})
	return children, opErr("watch children", path, err)
}

// watchForData sets an exists watch (a data watch when the node exists, a
// creation watch when not) and reads the data.
//
// Kafka 0.10.2: ZkClient.watchForData followed by readData(path, true).
func (c *Client) watchForData(path string) (data []byte, exists bool, err error) {
	full := c.fullPath(path)
	err = c.RetryUntilConnected(func() error {
		data, exists = nil, false
		if _, _, _, err := c.conn.ExistsW(full); err != nil {
			return err
		}
		d, _, _, err := c.conn.GetW(full)
		if errors.Is(err, gozk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		data, exists = d, true
		return nil
	})
	return data, exists, opErr("watch data", path, err)
}

// SubscribeChildChanges adds a persistent child listener on path (which need not
// exist) and returns its current children, nil if it does not exist. A listener
// already subscribed to path is not added twice (I0Itec keeps a set).
func (c *Client) SubscribeChildChanges(path string, l ChildListener) ([]string, error) {
	c.listenersMu.Lock()
	if !containsListener(c.childListeners[path], l) {
		c.childListeners[path] = append(c.childListeners[path], l)
	}
	c.listenersMu.Unlock()
	return c.watchForChilds(path)
}

// UnsubscribeChildChanges removes one child listener (compared with ==).
func (c *Client) UnsubscribeChildChanges(path string, l ChildListener) {
	c.listenersMu.Lock()
	defer c.listenersMu.Unlock()
	ls := c.childListeners[path]
	for i, x := range ls {
		if sameListener(x, l) {
			ls = append(ls[:i:i], ls[i+1:]...)
			break
		}
	}
	if len(ls) == 0 {
		delete(c.childListeners, path)
	} else {
		c.childListeners[path] = ls
	}
}

// SubscribeDataChanges adds a persistent data listener on path (which need not
// exist: its creation fires HandleDataChange); once per listener and path.
func (c *Client) SubscribeDataChanges(path string, l DataListener) error {
	c.listenersMu.Lock()
	if !containsListener(c.dataListeners[path], l) {
		c.dataListeners[path] = append(c.dataListeners[path], l)
	}
	c.listenersMu.Unlock()
	full := c.fullPath(path)
	err := c.RetryUntilConnected(func() error {
		_, _, _, err := c.conn.ExistsW(full)
		return err
	})
	return opErr("watch data", path, err)
}

// UnsubscribeDataChanges removes one data listener (compared with ==).
func (c *Client) UnsubscribeDataChanges(path string, l DataListener) {
	c.listenersMu.Lock()
	defer c.listenersMu.Unlock()
	ls := c.dataListeners[path]
	for i, x := range ls {
		if sameListener(x, l) {
			ls = append(ls[:i:i], ls[i+1:]...)
			break
		}
	}
	if len(ls) == 0 {
		delete(c.dataListeners, path)
	} else {
		c.dataListeners[path] = ls
	}
}

// SubscribeStateChanges adds a state listener (once); listeners are called in
// subscription order.
func (c *Client) SubscribeStateChanges(l StateListener) {
	c.listenersMu.Lock()
	if !containsListener(c.stateListeners, l) {
		c.stateListeners = append(c.stateListeners, l)
	}
	c.listenersMu.Unlock()
}

// containsListener reports whether l is in ls (compared as sameListener does).
func containsListener[L any](ls []L, l L) bool {
	for _, x := range ls {
		if sameListener(x, l) {
			return true
		}
	}
	return false
}

// UnsubscribeStateChanges removes one state listener (compared with ==).
func (c *Client) UnsubscribeStateChanges(l StateListener) {
	c.listenersMu.Lock()
	defer c.listenersMu.Unlock()
	for i, x := range c.stateListeners {
		if sameListener(x, l) {
			c.stateListeners = append(c.stateListeners[:i:i], c.stateListeners[i+1:]...)
			return
		}
	}
}

// UnsubscribeAll removes every listener.
func (c *Client) UnsubscribeAll() {
	c.listenersMu.Lock()
	c.childListeners = map[string][]ChildListener{}
	c.dataListeners = map[string][]DataListener{}
	c.stateListeners = nil
	c.listenersMu.Unlock()
}

func (c *Client) childListenersSnapshot(path string) []ChildListener {
	c.listenersMu.Lock()
	defer c.listenersMu.Unlock()
	return append([]ChildListener(nil), c.childListeners[path]...)
}

func (c *Client) dataListenersSnapshot(path string) []DataListener {
	c.listenersMu.Lock()
	defer c.listenersMu.Unlock()
	return append([]DataListener(nil), c.dataListeners[path]...)
}

func (c *Client) stateListenersSnapshot() []StateListener {
	c.listenersMu.Lock()
	defer c.listenersMu.Unlock()
	return append([]StateListener(nil), c.stateListeners...)
}
