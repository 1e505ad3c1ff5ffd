package oldconsumer

import (
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// TopicEventHandler hears the full topic list whenever /brokers/topics changes.
//
// Kafka 0.10.2: kafka.consumer.TopicEventHandler.
type TopicEventHandler interface {
	HandleTopicEvent(allTopics []string)
}

// ZookeeperTopicEventWatcher calls its handler with the topic list now and on every change of
// /brokers/topics (also after a new session).
//
// Kafka 0.10.2: kafka.consumer.ZookeeperTopicEventWatcher.
type ZookeeperTopicEventWatcher struct {
	zk      *zkutils.ZkUtils
	handler TopicEventHandler
	log     *logrus.Entry

	lock     sync.Mutex
	shutDown bool
	listener *zkTopicEventListener
	session  *zkTopicSessionExpireListener
}

// NewZookeeperTopicEventWatcher subscribes and calls the handler once with the current topics.
func NewZookeeperTopicEventWatcher(zk *zkutils.ZkUtils, handler TopicEventHandler, log *logrus.Entry) (*ZookeeperTopicEventWatcher, error) {
	w := &ZookeeperTopicEventWatcher{zk: zk, handler: handler, log: log.WithField("logger", "kafka.consumer.ZookeeperTopicEventWatcher")}
	w.listener = &zkTopicEventListener{w: w}
	w.session = &zkTopicSessionExpireListener{w: w}
	if err := zk.MakeSurePersistentPathExists(zkutils.BrokerTopicsPath); err != nil {
		return nil, err
	}
	zk.ZkClient.SubscribeStateChanges(w.session)
	topics, err := zk.ZkClient.SubscribeChildChanges(zkutils.BrokerTopicsPath, w.listener)
	if err != nil {
		return nil, err
	}
	return w, w.listener.HandleChildChange(zkutils.BrokerTopicsPath, topics)
}

// shutdown stops listening. Kafka's unsubscribes every listener of the client (the connector
// is shutting down anyway); here only the watcher's own.
func (w *ZookeeperTopicEventWatcher) shutdown() {
	w.lock.Lock()
	defer w.lock.Unlock()
	w.log.Info("Shutting down topic event watcher.")
	w.shutDown = true
	w.zk.ZkClient.UnsubscribeChildChanges(zkutils.BrokerTopicsPath, w.listener)
	w.zk.ZkClient.UnsubscribeStateChanges(w.session)
}

type zkTopicEventListener struct{ w *ZookeeperTopicEventWatcher }

// HandleChildChange implements zkclient.ChildListener: it reads the topics again and tells the
// handler.
func (l *zkTopicEventListener) HandleChildChange(string, []string) error {
	w := l.w
	w.lock.Lock()
	defer w.lock.Unlock()
	if w.shutDown {
		return nil
	}
	latest, err := w.zk.GetChildrenParentMayNotExist(zkutils.BrokerTopicsPath)
	if err != nil {
		w.log.WithError(err).Error("error in handling child changes")
		return nil
	}
	w.log.Debugf("all topics: %v", latest)
	w.handler.HandleTopicEvent(latest)
	return nil
}

type zkTopicSessionExpireListener struct{ w *ZookeeperTopicEventWatcher }

func (l *zkTopicSessionExpireListener) HandleStateChanged(zkclient.KeeperState) error { return nil }

// HandleNewSession implements zkclient.StateListener: zkclient re-arms the child watch itself,
// so only the log line of Kafka's resubscription remains.
func (l *zkTopicSessionExpireListener) HandleNewSession() error {
	l.w.log.Info("ZK expired: resubscribing topic event listener to topic registry")
	return nil
}
