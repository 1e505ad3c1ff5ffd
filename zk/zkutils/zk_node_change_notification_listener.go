package zkutils

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/zk/zkclient"
)

// NotificationHandler is told the content of each new change notification.
//
// Kafka 0.10.2: kafka.common.NotificationHandler.
type NotificationHandler interface {
	ProcessNotification(notificationMessage []byte) error
}

// DefaultChangeExpiration is how old a notification must be before any listener
// deletes it (15 minutes).
const DefaultChangeExpiration = 15 * time.Minute

// ZkNodeChangeNotificationListener follows a directory of sequential
// notification nodes (/config/changes/config_change_N, /kafka-acl-changes/
// acl_changes_N): every node with a sequence number above the last one handled
// is read and passed to the handler, in order; then nodes older than the
// expiration are deleted. On a new session everything not yet handled is
// processed.
//
// Kafka 0.10.2: kafka.common.ZkNodeChangeNotificationListener. processMu
// serialises processing between Init's caller and the zkclient event goroutine
// (Kafka relies on the event thread alone plus an unsynchronised var); the
// handler runs under it and must not call back into the listener.
type ZkNodeChangeNotificationListener struct {
	zkUtils          *ZkUtils
	seqNodeRoot      string
	seqNodePrefix    string
	handler          NotificationHandler
	changeExpiration time.Duration
	log              *logrus.Entry

	processMu          sync.Mutex
	lastExecutedChange int64
	closed             atomic.Bool

	childListener *notificationChildListener
	stateListener *notificationStateListener
}

// NewZkNodeChangeNotificationListener builds a listener; changeExpiration 0
// means DefaultChangeExpiration.
func NewZkNodeChangeNotificationListener(zkUtils *ZkUtils, seqNodeRoot, seqNodePrefix string,
	handler NotificationHandler, changeExpiration time.Duration) *ZkNodeChangeNotificationListener {
	if changeExpiration == 0 {
		changeExpiration = DefaultChangeExpiration
	}
	l := &ZkNodeChangeNotificationListener{
		zkUtils: zkUtils, seqNodeRoot: seqNodeRoot, seqNodePrefix: seqNodePrefix, handler: handler,
		changeExpiration: changeExpiration, lastExecutedChange: -1,
		log: zkUtils.log.WithField("logger", "kafka.common.ZkNodeChangeNotificationListener"),
	}
	l.childListener = &notificationChildListener{l}
	l.stateListener = &notificationStateListener{l}
	return l
}

// Init makes sure the root exists, subscribes, and processes what is there.
func (l *ZkNodeChangeNotificationListener) Init() error {
	if err := l.zkUtils.MakeSurePersistentPathExists(l.seqNodeRoot); err != nil {
		return err
	}
	if _, err := l.zkUtils.ZkClient.SubscribeChildChanges(l.seqNodeRoot, l.childListener); err != nil {
		return err
	}
	l.zkUtils.ZkClient.SubscribeStateChanges(l.stateListener)
	return l.ProcessAllNotifications()
}

// Close stops processing and unsubscribes; it returns once a notification being processed is done.
func (l *ZkNodeChangeNotificationListener) Close() {
	l.closed.Store(true)
	l.zkUtils.ZkClient.UnsubscribeChildChanges(l.seqNodeRoot, l.childListener)
	l.zkUtils.ZkClient.UnsubscribeStateChanges(l.stateListener)
	// Wait for a notification being processed, so the caller may close the ZooKeeper client.
	l.processMu.Lock()
	l.processMu.Unlock() //nolint:staticcheck // an empty critical section: a barrier
}

// ProcessAllNotifications reads the children and processes the new ones.
func (l *ZkNodeChangeNotificationListener) ProcessAllNotifications() error {
	children, err := l.zkUtils.GetChildren(l.seqNodeRoot)
	if err != nil {
		return err
	}
	return l.processNotifications(children)
}

// LastExecutedChange is the sequence number of the last notification handled
// (-1 before any).
func (l *ZkNodeChangeNotificationListener) LastExecutedChange() int64 {
	l.processMu.Lock()
	defer l.processMu.Unlock()
	return l.lastExecutedChange
}

func (l *ZkNodeChangeNotificationListener) processNotifications(notifications []string) error {
	if len(notifications) == 0 || l.closed.Load() {
		return nil
	}
	notifications = append([]string(nil), notifications...)
	sort.Strings(notifications)
	l.processMu.Lock()
	defer l.processMu.Unlock()
	l.log.Infof("Processing notification(s) to %s", l.seqNodeRoot)
	now := l.zkUtils.time.Milliseconds()
	for _, n := range notifications {
		if l.closed.Load() {
			return nil
		}
		id, ok := l.changeNumber(n)
		if !ok {
			l.log.Warnf("ignoring %s/%s: not a %s sequence node", l.seqNodeRoot, n, l.seqNodePrefix)
			continue
		}
		// 0.10.2 assigns lastExecutedChange after every child, processed or
		// not, so a later event re-runs the second-oldest notification again
		// (harmless there: handlers re-read the entity). Here only a processed
		// notification moves it, which is what the loop means to do.
		if id > l.lastExecutedChange {
			path := l.seqNodeRoot + "/" + n
			data, _, exists, err := l.zkUtils.ReadDataMaybeNull(path)
			if err != nil {
				return err
			}
			if !exists || data == nil {
				l.log.Warnf("read null data from %s when processing notification %s", path, n)
			} else if err := l.handler.ProcessNotification(data); err != nil {
				l.log.WithError(err).Errorf("error processing notification %s", path)
			}
			l.lastExecutedChange = id
		}
	}
	return l.purgeObsoleteNotifications(now, notifications)
}

// purgeObsoleteNotifications deletes notifications older than the expiration
// (by znode creation time).
func (l *ZkNodeChangeNotificationListener) purgeObsoleteNotifications(now int64, notifications []string) error {
	for _, n := range notifications {
		path := l.seqNodeRoot + "/" + n
		data, st, exists, err := l.zkUtils.ReadDataMaybeNull(path)
		if err != nil {
			return err
		}
		if exists && data != nil && now-st.Ctime > l.changeExpiration.Milliseconds() {
			l.log.Debugf("Purging change notification %s", path)
			if _, err := l.zkUtils.DeletePath(path); err != nil {
				return err
			}
		}
	}
	return nil
}

func (l *ZkNodeChangeNotificationListener) changeNumber(name string) (int64, bool) {
	if !strings.HasPrefix(name, l.seqNodePrefix) {
		return 0, false
	}
	v, err := strconv.ParseInt(name[len(l.seqNodePrefix):], 10, 64)
	return v, err == nil
}

// notificationChildListener is Kafka's NodeChangeListener.
type notificationChildListener struct {
	l *ZkNodeChangeNotificationListener
}

func (c *notificationChildListener) HandleChildChange(_ string, notifications []string) error {
	if notifications == nil {
		return nil
	}
	return c.l.processNotifications(notifications)
}

// notificationStateListener is Kafka's ZkStateChangeListener.
type notificationStateListener struct {
	l *ZkNodeChangeNotificationListener
}

func (s *notificationStateListener) HandleStateChanged(state zkclient.KeeperState) error {
	s.l.log.Debugf("New zookeeper state: %s", state)
	return nil
}

func (s *notificationStateListener) HandleNewSession() error { return s.l.ProcessAllNotifications() }
