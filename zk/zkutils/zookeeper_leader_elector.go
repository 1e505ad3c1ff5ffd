package zkutils

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/zk/zkclient"
)

// ZookeeperLeaderElector elects one leader among the brokers by racing to create
// an ephemeral node (/controller for the controller election).
//
// Kafka 0.10.2: kafka.server.ZookeeperLeaderElector (moved to zk/zkutils, see
// layout B.4 row 8). Differences forced by Go:
//   - Scala takes the ControllerContext for its lock and ZkUtils; here both are
//     parameters, and lock is the controller lock (a non-reentrant sync.Locker).
//   - Kafka's KafkaController.SessionExpirationListener re-elects after a new
//     session; the elector subscribes that state listener itself (Startup), so
//     any user of the elector gets it.
//   - The election path's parent is made to exist in Startup, not in the
//     constructor (which cannot return an error).
//
// Locking: Elect and Resign expect the caller to hold lock (Startup and the
// listeners take it); onBecomingLeader therefore runs with lock held, and
// onResigningAsLeader without it, as in Kafka. AmILeader is safe anywhere.
type ZookeeperLeaderElector struct {
	zkUtils             *ZkUtils
	electionPath        string
	brokerID            int32
	onBecomingLeader    func() error
	onResigningAsLeader func()
	lock                sync.Locker
	log                 *logrus.Entry

	leaderID atomic.Int32

	leaderChangeListener *LeaderChangeListener
	sessionListener      *electorSessionListener
}

// NewZookeeperLeaderElector builds an elector; nothing happens before Startup.
func NewZookeeperLeaderElector(zkUtils *ZkUtils, electionPath string, brokerID int32,
	onBecomingLeader func() error, onResigningAsLeader func(), lock sync.Locker) *ZookeeperLeaderElector {
	e := &ZookeeperLeaderElector{
		zkUtils:             zkUtils,
		electionPath:        electionPath,
		brokerID:            brokerID,
		onBecomingLeader:    onBecomingLeader,
		onResigningAsLeader: onResigningAsLeader,
		lock:                lock,
		log:                 zkUtils.log.WithField("logger", "kafka.server.ZookeeperLeaderElector").WithField("brokerId", brokerID),
	}
	e.leaderID.Store(-1)
	e.leaderChangeListener = &LeaderChangeListener{elector: e}
	e.sessionListener = &electorSessionListener{elector: e}
	return e
}

// Startup watches the election path and runs a first election.
func (e *ZookeeperLeaderElector) Startup() error {
	if i := strings.LastIndexByte(e.electionPath, '/'); i > 0 {
		if err := e.zkUtils.MakeSurePersistentPathExists(e.electionPath[:i]); err != nil {
			return err
		}
	}
	e.lock.Lock()
	defer e.lock.Unlock()
	if err := e.zkUtils.ZkClient.SubscribeDataChanges(e.electionPath, e.leaderChangeListener); err != nil {
		return err
	}
	e.zkUtils.ZkClient.SubscribeStateChanges(e.sessionListener)
	e.Elect()
	return nil
}

// GetControllerID reads the current leader's id, -1 if there is none (or it
// cannot be read).
func (e *ZookeeperLeaderElector) GetControllerID() int32 {
	data, _, ok, err := e.zkUtils.ReadDataMaybeNull(e.electionPath)
	if err != nil || !ok {
		return -1
	}
	id, err := ParseControllerId(data)
	if err != nil {
		e.log.WithError(err).Warn("cannot parse the leader znode")
		return -1
	}
	return id
}

// Elect tries to become leader and reports whether this broker leads. Caller
// holds lock. If onBecomingLeader fails the elector resigns at once, which
// makes everyone elect again.
func (e *ZookeeperLeaderElector) Elect() bool {
	data := ControllerZkData(e.brokerID, e.zkUtils.time.Milliseconds())
	e.leaderID.Store(e.GetControllerID())
	if id := e.leaderID.Load(); id != -1 {
		e.log.Debugf("Broker %d has been elected as leader, so stopping the election process.", id)
		return e.AmILeader()
	}
	ce := &ZKCheckedEphemeral{Path: e.electionPath, Data: data, ZkUtils: e.zkUtils}
	err := ce.Create()
	switch {
	case err == nil:
		e.log.Infof("%d successfully elected as leader", e.brokerID)
		e.leaderID.Store(e.brokerID)
		if err := e.onBecomingLeader(); err != nil {
			e.log.WithError(err).Errorf("Error while electing or becoming leader on broker %d", e.brokerID)
			e.Resign()
		}
	case errors.Is(err, zkclient.ErrNodeExists):
		id := e.GetControllerID()
		e.leaderID.Store(id)
		if id != -1 {
			e.log.Debugf("Broker %d was elected as leader instead of broker %d", id, e.brokerID)
		} else {
			e.log.Warn("A leader has been elected but just resigned, this will result in another round of election")
		}
	default:
		e.log.WithError(err).Errorf("Error while electing or becoming leader on broker %d", e.brokerID)
		e.Resign()
	}
	return e.AmILeader()
}

// AmILeader reports whether this broker is the leader as far as it knows.
func (e *ZookeeperLeaderElector) AmILeader() bool { return e.leaderID.Load() == e.brokerID }

// LeaderID is the last leader id seen (-1 for none).
func (e *ZookeeperLeaderElector) LeaderID() int32 { return e.leaderID.Load() }

// Resign forgets the leadership and deletes the election node, which triggers a
// new election everywhere.
func (e *ZookeeperLeaderElector) Resign() {
	e.leaderID.Store(-1)
	if _, err := e.zkUtils.DeletePath(e.electionPath); err != nil {
		e.log.WithError(err).Warnf("could not delete %s while resigning", e.electionPath)
	}
}

// Close stops listening. Like Kafka's it does not delete the node: it goes away
// with the session.
func (e *ZookeeperLeaderElector) Close() {
	e.leaderID.Store(-1)
	e.zkUtils.ZkClient.UnsubscribeDataChanges(e.electionPath, e.leaderChangeListener)
	e.zkUtils.ZkClient.UnsubscribeStateChanges(e.sessionListener)
}

// LeaderChangeListener follows the election node: a change records the new
// leader (and resigns if it was us), a deletion triggers an election.
//
// Kafka 0.10.2: ZookeeperLeaderElector.LeaderChangeListener.
type LeaderChangeListener struct {
	elector *ZookeeperLeaderElector
}

// HandleDataChange implements zkclient.DataListener.
func (l *LeaderChangeListener) HandleDataChange(dataPath string, data []byte) error {
	e := l.elector
	e.lock.Lock()
	before := e.AmILeader()
	id, err := ParseControllerId(data)
	if err != nil {
		e.lock.Unlock()
		return err
	}
	e.leaderID.Store(id)
	e.log.Infof("New leader is %d", id)
	shouldResign := before && !e.AmILeader()
	e.lock.Unlock()
	if shouldResign {
		e.onResigningAsLeader()
	}
	return nil
}

// HandleDataDeleted implements zkclient.DataListener.
func (l *LeaderChangeListener) HandleDataDeleted(dataPath string) error {
	e := l.elector
	e.lock.Lock()
	e.log.Debugf("%d leader change listener fired for path %s to handle data deleted: trying to elect as a leader", e.brokerID, dataPath)
	shouldResign := e.AmILeader()
	e.lock.Unlock()
	if shouldResign {
		e.onResigningAsLeader()
	}
	e.lock.Lock()
	defer e.lock.Unlock()
	e.Elect()
	return nil
}

// electorSessionListener re-elects after the ZooKeeper session was replaced.
//
// Kafka 0.10.2: KafkaController.SessionExpirationListener.
type electorSessionListener struct {
	elector *ZookeeperLeaderElector
}

func (l *electorSessionListener) HandleStateChanged(zkclient.KeeperState) error { return nil }

func (l *electorSessionListener) HandleNewSession() error {
	e := l.elector
	e.log.Info("ZK expired; shut down all controller components and try to re-elect")
	if e.GetControllerID() == e.brokerID {
		e.log.Infof("ZK expired, but the current controller id %d is the same as this broker id, skip re-elect", e.brokerID)
		return nil
	}
	if e.AmILeader() {
		e.leaderID.Store(-1)
		e.onResigningAsLeader()
	}
	e.lock.Lock()
	defer e.lock.Unlock()
	e.Elect()
	return nil
}
