package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	kmetrics "github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/clients/security"
	"github.com/zkafka/zkafka/core/controller"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/security/auth"
	"github.com/zkafka/zkafka/core/server/brokerstate"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/core/utils"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// Loggers are the separate log4j loggers a broker writes to (docs/design.md §5). Any may be nil:
// Server then falls back to it.
type Loggers struct {
	Server      *logrus.Entry // "kafka" (server.log)
	StateChange *logrus.Entry // state.change.logger (state-change.log)
	Request     *logrus.Entry // kafka.request.logger (kafka-request.log)
	Controller  *logrus.Entry // kafka.controller (controller.log)
	Authorizer  *logrus.Entry // kafka.authorizer.logger (kafka-authorizer.log); nil: Server's
}

// KafkaServer is one broker: it starts its components in 0.10.2's order and stops them in
// reverse.
//
// Kafka 0.10.2: kafka.server.KafkaServer. Every broker builds a KafkaController
// (kafka_server_controller.go; only the one elected on /controller is active) and, when
// controlled.shutdown.enable is set, asks the active one to move its leaderships before it
// stops. It also builds the GroupCoordinator (kafka_server_coordinator.go) unless a test set one.
type KafkaServer struct {
	config  *config.KafkaConfig
	time    common.Time
	loggers Loggers
	logger  *logrus.Entry
	getenv  func(string) string

	// Controller is the broker's controller module (Startup builds a KafkaController when it is
	// nil); Coordinator is the group coordinator (Startup builds one when it is nil). Set them
	// before Startup.
	Controller  Controller
	Coordinator GroupCoordinator

	stopCoordinator func() // set by startGroupCoordinator when it built the coordinator
	// ZkClientOptions are passed to the broker's ZooKeeper client (tests route it through a
	// session capture to expire its session for real).
	ZkClientOptions []zkclient.Option

	BrokerState brokerstate.BrokerState

	// Metrics is the broker's registry (MBean-named meters: RequestMetrics from the SocketServer,
	// BrokerTopicMetrics from the ReplicaManager); a reporter may export it.
	Metrics    *metrics.Registry
	topicStats *metrics.BrokerTopicStats
	// metricsReporter serves Metrics over HTTP when a port is set (kafka_server_metrics.go).
	metricsReporter atomic.Pointer[metrics.HTTPReporter]

	startupComplete atomic.Bool
	isStartingUp    atomic.Bool
	isShuttingDown  atomic.Bool
	shutdownOnce    sync.Once
	shutdownLatch   chan struct{}

	kafkaScheduler     *utils.KafkaScheduler
	zkUtils            *zkutils.ZkUtils
	clusterID          string
	logManager         *log.LogManager
	socketServer       *network.SocketServer
	replicaManager     *ReplicaManager
	metadataCache      *MetadataCache
	apis               *KafkaApis
	adminManager       *AdminManager
	requestHandlerPool *KafkaRequestHandlerPool
	kafkaHealthcheck   *KafkaHealthcheck

	// kafkaController is this broker's controller module (kafka_server_controller.go).
	kafkaController      *controller.KafkaController
	dynamicConfigManager *DynamicConfigManager
	// Quotas are the client and replication quota managers (after Startup), fed by the
	// DynamicConfigManager (quota_factory.go); clientMetrics is the client-metrics-library
	// registry their sensors live in (Kafka's KafkaServer.metrics), shown in Metrics.
	Quotas *QuotaManagers
	// credentialCache holds the SCRAM credentials of SASL listeners (nil without one).
	credentialCache *security.CredentialCache
	// interBroker secures this broker's connections to the others (nil: PLAINTEXT between brokers).
	interBroker *security.InterBrokerSecurity
	// authorizer is the SimpleAclAuthorizer of authorizer.class.name (nil when empty).
	authorizer    auth.Authorizer
	clientMetrics *kmetrics.Metrics
}

// NewKafkaServer makes a broker from its config; getenv (os.Getenv when nil) supplies JMX_PORT.
func NewKafkaServer(cfg *config.KafkaConfig, clock common.Time, loggers Loggers, getenv func(string) string) *KafkaServer {
	if clock == nil {
		clock = common.SystemTime{}
	}
	if loggers.Server == nil {
		loggers.Server = discardEntry()
	}
	if loggers.StateChange == nil {
		loggers.StateChange = loggers.Server.WithField("logger", "state.change.logger")
	}
	if loggers.Request == nil {
		loggers.Request = loggers.Server.WithField("logger", "kafka.request.logger")
	}
	if loggers.Controller == nil {
		loggers.Controller = loggers.Server.WithField("logger", "kafka.controller")
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	s := &KafkaServer{config: cfg, time: clock, loggers: loggers, getenv: getenv, shutdownLatch: make(chan struct{})}
	s.Metrics = metrics.NewRegistry(clock)
	s.topicStats = metrics.NewBrokerTopicStats(s.Metrics)
	s.logger = loggers.Server.WithField("logger", "kafka.server.KafkaServer").WithField("ident", "")
	return s
}

// Config is the broker's config (broker.id filled in once Startup chose it).
func (s *KafkaServer) Config() *config.KafkaConfig { return s.config }

// ZkUtils is the broker's ZooKeeper access (after Startup).
func (s *KafkaServer) ZkUtils() *zkutils.ZkUtils { return s.zkUtils }

// ReplicaManager is the broker's replica manager (after Startup).
func (s *KafkaServer) ReplicaManager() *ReplicaManager { return s.replicaManager }

// MetadataCache is the broker's metadata cache (after Startup).
func (s *KafkaServer) MetadataCache() *MetadataCache { return s.metadataCache }

// LogManager is the broker's log manager (after Startup).
func (s *KafkaServer) LogManager() *log.LogManager { return s.logManager }

// ClusterID is /cluster/id.
func (s *KafkaServer) ClusterID() string { return s.clusterID }

// BoundPort is the port the listener actually bound (for listeners on port 0).
func (s *KafkaServer) BoundPort(listenerName string) int32 {
	return s.socketServer.BoundPort(listenerName)
}

func (s *KafkaServer) setIdent() {
	s.logger = s.loggers.Server.WithField("logger", "kafka.server.KafkaServer").
		WithField("ident", fmt.Sprintf("[Kafka Server %d], ", s.config.BrokerID))
}

// Startup starts the broker. On failure everything started so far is shut down again.
func (s *KafkaServer) Startup() (err error) {
	s.logger.Info("starting")
	if s.isShuttingDown.Load() {
		return errors.New("Kafka server is still shutting down, cannot re-start!")
	}
	if s.startupComplete.Load() {
		return nil
	}
	if !s.isStartingUp.CompareAndSwap(false, true) {
		return nil
	}
	defer func() {
		if err != nil {
			s.logger.WithError(err).Error("Fatal error during KafkaServer startup. Prepare to shutdown")
			s.isStartingUp.Store(false)
			s.shutdownComponents()
		}
	}()
	s.BrokerState.NewState(brokerstate.Starting)

	s.kafkaScheduler = utils.NewKafkaScheduler(int(s.config.BackgroundThreads), s.loggers.Server)
	s.kafkaScheduler.Startup()

	if s.zkUtils, err = s.initZk(); err != nil {
		return err
	}
	if s.clusterID, err = s.getOrGenerateClusterID(); err != nil {
		return err
	}
	s.logger.Infof("Cluster ID = %s", s.clusterID)

	defaultLog, err := logConfigFromKafka(s.config)
	if err != nil {
		return err
	}
	if s.logManager, err = s.createLogManager(defaultLog); err != nil {
		return err
	}
	s.logManager.Startup()

	if s.config.BrokerID, err = s.getBrokerID(); err != nil {
		return err
	}
	s.setIdent()
	// zkafka extensions must agree across the cluster (leader_epoch_marker.go).
	if err = s.registerZkafkaBrokerMarker(); err != nil {
		return err
	}
	if err = s.checkLeaderEpochTruncationAgreement(); err != nil {
		return err
	}
	s.logManager.RemoveLeaderEpochCheckpoints() // mode off: no stale history survives this run

	s.metadataCache = NewMetadataCache(s.config.BrokerID, s.loggers.Server)

	s.startQuotaManagers()

	sscfg := network.SocketServerConfigFrom(s.config)
	sscfg.Metrics = s.Metrics
	if sscfg.SaslAuthenticator, s.credentialCache, err = s.saslAuthenticator(); err != nil {
		return err
	}
	if sscfg.TLSConfig, err = s.sslServerConfig(); err != nil {
		return err
	}
	if s.interBroker, err = s.interBrokerSecurity(sscfg.SaslAuthenticator); err != nil {
		return err
	}
	if s.config.LeaderEpochTruncationEnable {
		sscfg.ParseRequest = interBrokerRequestParser(s.config.BrokerID)
	}
	s.socketServer = network.NewSocketServer(sscfg, s.loggers.Server.WithField("logger", "kafka.network.SocketServer").
		WithField("ident", "[Socket Server on Broker "+fmt.Sprint(s.config.BrokerID)+"], "))
	if err = s.socketServer.Startup(context.Background(), sscfg); err != nil {
		return err
	}

	s.replicaManager, err = NewReplicaManager(ReplicaManagerConfig{Config: s.config, Time: s.time, ZkUtils: s.zkUtils,
		LogManager: s.logManager, Scheduler: s.kafkaScheduler, DefaultLogConfig: defaultLog, BrokerTopicStats: s.topicStats,
		Metrics: s.Metrics, Logger: s.loggers.Server, StateChange: s.loggers.StateChange, MetadataCache: s.metadataCache,
		IsShuttingDown: &s.isShuttingDown, QuotaManager: s.Quotas.Follower, InterBroker: s.interBroker})
	if err != nil {
		return err
	}
	s.replicaManager.Startup()

	// The controller module: every broker runs one; the election on /controller picks the
	// active one. A Controller set by a test before Startup replaces it.
	if s.Controller == nil {
		s.kafkaController = s.newKafkaController()
		if err = s.kafkaController.Startup(); err != nil {
			return err
		}
		s.Controller = s.kafkaController
	}
	// The group coordinator: built here unless a test set the Coordinator hook.
	if err = s.startGroupCoordinator(); err != nil {
		return err
	}

	if s.adminManager, err = NewAdminManager(AdminManagerConfig{Config: s.config, MetadataCache: s.metadataCache,
		ZkUtils: s.zkUtils, Time: s.time, Metrics: s.Metrics, Logger: s.loggers.Server}); err != nil {
		return err
	}

	if s.authorizer, err = s.startAuthorizer(); err != nil {
		return err
	}

	s.apis = NewKafkaApis(KafkaApisConfig{RequestChannel: s.socketServer.RequestChannel, ReplicaManager: s.replicaManager,
		ZkUtils: s.zkUtils, BrokerID: s.config.BrokerID, Config: s.config, MetadataCache: s.metadataCache,
		Controller: s.Controller, Coordinator: s.Coordinator, AdminManager: s.adminManager, ClusterID: s.clusterID,
		Quotas: s.Quotas, Authorizer: s.authorizer,
		Logger: s.loggers.Server, RequestLogger: s.loggers.Request})
	s.requestHandlerPool = NewKafkaRequestHandlerPool(s.config.BrokerID, s.socketServer.RequestChannel, s.apis,
		int(s.config.NumIoThreads), s.loggers.Server)

	// Config changes made in ZooKeeper while the broker runs (kafka-configs.sh).
	s.dynamicConfigManager = NewDynamicConfigManager(s.zkUtils,
		NewConfigHandlers(s.logManager, defaultLog, s.config, s.Quotas, s.credentialCache, s.loggers.Server), 0, s.loggers.Server)
	if err = s.dynamicConfigManager.Startup(); err != nil {
		return err
	}

	// Tell everyone we are alive: advertise the bound port of listeners configured with port 0.
	listeners := make([]config.EndPoint, len(s.config.AdvertisedListeners))
	for i, ep := range s.config.AdvertisedListeners {
		if ep.Port == 0 {
			ep.Port = s.socketServer.BoundPort(ep.ListenerName)
		}
		listeners[i] = ep
	}
	s.kafkaHealthcheck = NewKafkaHealthcheck(s.config.BrokerID, listeners, s.zkUtils, s.config.Rack,
		s.config.InterBrokerProtocolVersion, JmxPortFromEnv(s.getenv), s.time, s.loggers.Server)
	if err = s.kafkaHealthcheck.Startup(); err != nil {
		return err
	}
	// Again once registered: two brokers with different settings starting together cannot both
	// miss each other (leader_epoch_marker.go).
	if err = s.checkLeaderEpochTruncationAgreement(); err != nil {
		return err
	}
	if err = s.checkpointBrokerID(s.config.BrokerID); err != nil {
		return err
	}
	if err = s.startMetrics(); err != nil {
		return err
	}
	s.BrokerState.NewState(brokerstate.RunningAsBroker)
	s.startupComplete.Store(true)
	s.isStartingUp.Store(false)
	s.logger.Info("started")
	return nil
}

// initZk creates the chroot (through a connection without it) and connects, then creates the
// common paths. Both sessions log in to ZooKeeper when the JAAS file has a Client section; with
// zookeeper.set.acl the znodes get secure ACLs, and a missing login fails startup.
func (s *KafkaServer) initZk() (*zkutils.ZkUtils, error) {
	connect := s.config.ZkConnect
	s.logger.Infof("Connecting to zookeeper on %s", connect)
	secure := s.config.ZkEnableSecureAcls
	login, err := security.ZkLoginFromOpts(s.zkLoginOpts())
	if err != nil {
		return nil, err
	}
	if secure && !login.Enabled {
		return nil, fmt.Errorf("java.lang.SecurityException: zookeeper.set.acl is true, but the verification of the JAAS login file failed.")
	}
	var zkOpts []zkclient.Option
	if login.Enabled {
		zkOpts = append(zkOpts, zkclient.WithAuth("digest", []byte(login.DigestAuth)))
	}
	sessionTimeout := time.Duration(s.config.ZkSessionTimeoutMs) * time.Millisecond
	connTimeout := time.Duration(s.config.ZkConnectionTimeoutMs) * time.Millisecond
	zkLog := s.loggers.Server.WithField("logger", "kafka.utils.ZkUtils")
	if i := strings.IndexByte(connect, '/'); i >= 0 {
		chroot := connect[i:]
		if len(chroot) > 1 {
			z, err := zkutils.Connect(connect[:i], sessionTimeout, connTimeout, secure, zkLog, s.time, zkOpts...)
			if err != nil {
				return nil, fmt.Errorf("connecting to ZooKeeper %s: %w", connect[:i], err)
			}
			err = z.MakeSurePersistentPathExists(chroot)
			z.Close()
			if err != nil {
				return nil, err
			}
			s.logger.Infof("Created zookeeper path %s", chroot)
		}
	}
	z, err := zkutils.Connect(connect, sessionTimeout, connTimeout, secure, zkLog, s.time, append(zkOpts, s.ZkClientOptions...)...)
	if err != nil {
		return nil, fmt.Errorf("connecting to ZooKeeper %s: %w", connect, err)
	}
	if err := z.SetupCommonPaths(); err != nil {
		z.Close()
		return nil, err
	}
	return z, nil
}

// getOrGenerateClusterID reads /cluster/id or proposes a new base64 UUID.
func (s *KafkaServer) getOrGenerateClusterID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40 // a version-4 UUID, as java.util.UUID.randomUUID
	b[8] = b[8]&0x3f | 0x80
	return s.zkUtils.CreateOrGetClusterId(base64.RawURLEncoding.EncodeToString(b[:]))
}

func (s *KafkaServer) createLogManager(defaultLog *log.LogConfig) (*log.LogManager, error) {
	all, err := s.zkUtils.FetchAllEntityConfigs(zkutils.ConfigTypeTopic)
	if err != nil {
		return nil, err
	}
	topicConfigs := map[string]*log.LogConfig{}
	for topic, overrides := range all {
		if len(overrides) == 0 {
			continue
		}
		lc, err := log.FromProps(defaultLog.Originals, overrides)
		if err != nil {
			return nil, fmt.Errorf("config of topic %s: %w", topic, err)
		}
		topicConfigs[topic] = lc
	}
	c := s.config
	cleaner := log.NewCleanerConfig()
	cleaner.NumThreads = int(c.LogCleanerThreads)
	cleaner.DedupeBufferSize = c.LogCleanerDedupeBufferSize
	cleaner.DedupeBufferLoadFactor = c.LogCleanerDedupeBufferLoadFactor
	cleaner.IOBufferSize = int(c.LogCleanerIoBufferSize)
	cleaner.MaxMessageSize = int(c.MessageMaxBytes)
	cleaner.MaxIOBytesPerSecond = c.LogCleanerIoMaxBytesPerSecond
	cleaner.BackOff = msDuration(c.LogCleanerBackoffMs)
	cleaner.EnableCleaner = c.LogCleanerEnable
	return log.NewLogManager(log.LogManagerConfig{
		LogDirs: c.LogDirs, TopicConfigs: topicConfigs, DefaultConfig: defaultLog, CleanerConfig: cleaner,
		IOThreads:       int(c.NumRecoveryThreadsPerDataDir),
		FlushCheck:      msDuration(c.LogFlushSchedulerIntervalMs),
		FlushCheckpoint: msDuration(int64(c.LogFlushOffsetCheckpointIntervalMs)),
		RetentionCheck:  msDuration(c.LogCleanupIntervalMs),
		Metrics:         s.Metrics,

		LeaderEpochCache: c.LeaderEpochTruncationEnable,
	}, s.kafkaScheduler, &s.BrokerState, s.time, s.loggers.Server)
}

// getBrokerID chooses the broker id: the one stored in every data directory's meta.properties
// (they must agree, and agree with a configured broker.id), the configured one, or a new one
// from /brokers/seqid.
func (s *KafkaServer) getBrokerID() (int32, error) {
	brokerID := s.config.BrokerID
	ids := map[int32]bool{}
	for _, dir := range s.config.LogDirs {
		id, ok, err := NewBrokerMetadataCheckpoint(dir).Read()
		if err != nil {
			return 0, err
		}
		if ok {
			ids[id] = true
		}
	}
	switch {
	case len(ids) > 1:
		return 0, fmt.Errorf("failed to match broker.id across log.dirs. This could happen if multiple brokers shared a log directory (log.dirs) or partial data was manually copied from another broker. Found %v", keysOf(ids))
	case len(ids) == 1:
		var stored int32
		for id := range ids {
			stored = id
		}
		if brokerID >= 0 && brokerID != stored {
			return 0, fmt.Errorf("configured broker.id %d doesn't match stored broker.id %d in meta.properties. If you moved your data, make sure your configured broker.id matches. If you intend to create a new broker, you should remove all data in your data directories (log.dirs).", brokerID, stored)
		}
		return stored, nil
	case brokerID < 0 && s.config.BrokerIDGenerationEnable:
		return s.zkUtils.GetBrokerSequenceId(s.config.MaxReservedBrokerID)
	}
	return brokerID, nil
}

// msDuration converts milliseconds, saturating where Kafka's Long.MaxValue ("never") would
// overflow a time.Duration.
func msDuration(ms int64) time.Duration {
	if ms > math.MaxInt64/int64(time.Millisecond) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ms) * time.Millisecond
}

func keysOf(m map[int32]bool) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// checkpointBrokerID writes meta.properties where it is missing.
func (s *KafkaServer) checkpointBrokerID(brokerID int32) error {
	for _, dir := range s.config.LogDirs {
		cp := NewBrokerMetadataCheckpoint(dir)
		if _, ok, err := cp.Read(); err == nil && ok {
			continue
		}
		if err := cp.Write(brokerID, time.Now()); err != nil {
			return err
		}
	}
	return nil
}

// Shutdown stops the broker in reverse order of Startup; LogManager writes the clean-shutdown
// marker and the ReplicaManager a last HW checkpoint. It is safe to call more than once.
func (s *KafkaServer) Shutdown() {
	if s.isStartingUp.Load() {
		s.logger.Error("Kafka server is still starting up, cannot shut down!")
		return
	}
	if !s.startupComplete.Load() {
		return
	}
	if !s.isShuttingDown.CompareAndSwap(false, true) {
		return
	}
	s.logger.Info("shutting down")
	// Controlled shutdown asks the controller to move leadership away first.
	s.controlledShutdown()
	s.shutdownComponents()
	s.startupComplete.Store(false)
	s.isShuttingDown.Store(false)
	s.shutdownOnce.Do(func() { close(s.shutdownLatch) })
	s.logger.Info("shut down completed")
}

func (s *KafkaServer) shutdownComponents() {
	s.BrokerState.NewState(brokerstate.BrokerShuttingDown)
	s.stopMetrics()
	if s.kafkaHealthcheck != nil {
		s.kafkaHealthcheck.Shutdown()
	}
	if s.socketServer != nil {
		s.socketServer.Shutdown()
	}
	if s.requestHandlerPool != nil {
		s.requestHandlerPool.Shutdown()
	}
	if s.kafkaScheduler != nil {
		s.kafkaScheduler.Shutdown()
	}
	s.Quotas.Shutdown() // Kafka: apis.close()
	if s.authorizer != nil {
		s.authorizer.Close()
	}
	if s.replicaManager != nil {
		s.replicaManager.Shutdown(true)
	}
	if s.adminManager != nil {
		s.adminManager.Shutdown()
	}
	if s.dynamicConfigManager != nil {
		s.dynamicConfigManager.Shutdown()
	}
	s.shutdownGroupCoordinator()
	if s.logManager != nil {
		if err := s.logManager.Shutdown(); err != nil {
			s.logger.WithError(err).Error("error shutting down the log manager")
		}
	}
	if s.kafkaController != nil {
		s.kafkaController.Shutdown()
		if s.Controller == Controller(s.kafkaController) {
			s.Controller = nil
		}
	}
	if s.zkUtils != nil {
		s.zkUtils.Close()
	}
	if s.clientMetrics != nil {
		s.clientMetrics.Close()
	}
	s.BrokerState.NewState(brokerstate.NotRunning)
	s.kafkaHealthcheck, s.socketServer, s.requestHandlerPool, s.kafkaScheduler = nil, nil, nil, nil
	s.replicaManager, s.adminManager, s.logManager, s.zkUtils = nil, nil, nil, nil
	s.kafkaController, s.dynamicConfigManager = nil, nil
	s.Quotas, s.clientMetrics = nil, nil
}

// AwaitShutdown blocks until Shutdown has completed.
func (s *KafkaServer) AwaitShutdown() { <-s.shutdownLatch }
