package config

import kconfig "github.com/zkafka/zkafka/clients/config"

// Props holds one typed field per key of the broker's ConfigDef (config_def.go), named after
// KafkaConfig's XxxProp constant without the suffix, filled once by FromProps. A key whose
// default is null is a pointer (nil when unset); LIST keys are []string. Values derived from
// several keys (the listeners, log.dirs, the roll and retention times...) are fields of
// KafkaConfig itself, which shadow the raw ones of the same name: c.LogDirs is the parsed list,
// c.Props.LogDirs the log.dirs string as configured.
//
// Kafka 0.10.2: the getInt(KafkaConfig.XxxProp)-style reads of kafka.server.KafkaConfig.
type Props struct {
	// ZooKeeper
	ZkConnect             string `config:"zookeeper.connect"`
	ZkSessionTimeoutMs    int32  `config:"zookeeper.session.timeout.ms"`
	ZkConnectionTimeoutMs *int32 `config:"zookeeper.connection.timeout.ms"`
	ZkSyncTimeMs          int32  `config:"zookeeper.sync.time.ms"`
	ZkEnableSecureAcls    bool   `config:"zookeeper.set.acl"`

	// General
	BrokerID                   int32   `config:"broker.id"`
	BrokerIDGenerationEnable   bool    `config:"broker.id.generation.enable"`
	MaxReservedBrokerID        int32   `config:"reserved.broker.max.id"`
	MessageMaxBytes            int32   `config:"message.max.bytes"`
	NumNetworkThreads          int32   `config:"num.network.threads"`
	NumIoThreads               int32   `config:"num.io.threads"`
	BackgroundThreads          int32   `config:"background.threads"`
	QueuedMaxRequests          int32   `config:"queued.max.requests"`
	RequestTimeoutMs           int32   `config:"request.timeout.ms"`
	DeleteTopicEnable          bool    `config:"delete.topic.enable"`
	AutoCreateTopicsEnable     bool    `config:"auto.create.topics.enable"`
	NumPartitions              int32   `config:"num.partitions"`
	DefaultReplicationFactor   int32   `config:"default.replication.factor"`
	CreateTopicPolicyClassName *string `config:"create.topic.policy.class.name"`
	CompressionType            string  `config:"compression.type"`

	// Socket server / listeners
	Listeners                    *string `config:"listeners"`
	AdvertisedListeners          *string `config:"advertised.listeners"`
	ListenerSecurityProtocolMap  string  `config:"listener.security.protocol.map"`
	Port                         int32   `config:"port"`
	HostName                     string  `config:"host.name"`
	AdvertisedHostName           *string `config:"advertised.host.name"`
	AdvertisedPort               *int32  `config:"advertised.port"`
	InterBrokerListenerName      *string `config:"inter.broker.listener.name"`
	InterBrokerSecurityProtocol  string  `config:"security.inter.broker.protocol"`
	SocketSendBufferBytes        int32   `config:"socket.send.buffer.bytes"`
	SocketReceiveBufferBytes     int32   `config:"socket.receive.buffer.bytes"`
	SocketRequestMaxBytes        int32   `config:"socket.request.max.bytes"`
	MaxConnectionsPerIP          int32   `config:"max.connections.per.ip"`
	MaxConnectionsPerIPOverrides string  `config:"max.connections.per.ip.overrides"`
	ConnectionsMaxIdleMs         int64   `config:"connections.max.idle.ms"`
	Rack                         *string `config:"broker.rack"`

	// Log basics
	LogDirs                            *string `config:"log.dirs"`
	LogDir                             string  `config:"log.dir"`
	LogSegmentBytes                    int32   `config:"log.segment.bytes"`
	LogIndexSizeMaxBytes               int32   `config:"log.index.size.max.bytes"`
	LogIndexIntervalBytes              int32   `config:"log.index.interval.bytes"`
	LogPreAllocate                     bool    `config:"log.preallocate"`
	LogMessageFormatVersion            string  `config:"log.message.format.version"`
	LogMessageTimestampType            string  `config:"log.message.timestamp.type"`
	LogMessageTimestampDifferenceMaxMs int64   `config:"log.message.timestamp.difference.max.ms"`
	NumRecoveryThreadsPerDataDir       int32   `config:"num.recovery.threads.per.data.dir"`
	MinInSyncReplicas                  int32   `config:"min.insync.replicas"`

	// Log retention, roll, flush
	LogRetentionTimeMillis             *int64   `config:"log.retention.ms"`
	LogRetentionTimeMinutes            *int32   `config:"log.retention.minutes"`
	LogRetentionTimeHours              int32    `config:"log.retention.hours"`
	LogRetentionBytes                  int64    `config:"log.retention.bytes"`
	LogCleanupIntervalMs               int64    `config:"log.retention.check.interval.ms"`
	LogRollTimeMillis                  *int64   `config:"log.roll.ms"`
	LogRollTimeHours                   int32    `config:"log.roll.hours"`
	LogRollTimeJitterMillis            *int64   `config:"log.roll.jitter.ms"`
	LogRollTimeJitterHours             int32    `config:"log.roll.jitter.hours"`
	LogFlushIntervalMessages           int64    `config:"log.flush.interval.messages"`
	LogFlushIntervalMs                 *int64   `config:"log.flush.interval.ms"`
	LogFlushSchedulerIntervalMs        int64    `config:"log.flush.scheduler.interval.ms"`
	LogFlushOffsetCheckpointIntervalMs int32    `config:"log.flush.offset.checkpoint.interval.ms"`
	LogDeleteDelayMs                   int64    `config:"log.segment.delete.delay.ms"`
	LogCleanupPolicy                   []string `config:"log.cleanup.policy"`

	// Log cleaner (compaction)
	LogCleanerEnable                 bool    `config:"log.cleaner.enable"`
	LogCleanerThreads                int32   `config:"log.cleaner.threads"`
	LogCleanerIoMaxBytesPerSecond    float64 `config:"log.cleaner.io.max.bytes.per.second"`
	LogCleanerDedupeBufferSize       int64   `config:"log.cleaner.dedupe.buffer.size"`
	LogCleanerIoBufferSize           int32   `config:"log.cleaner.io.buffer.size"`
	LogCleanerDedupeBufferLoadFactor float64 `config:"log.cleaner.io.buffer.load.factor"`
	LogCleanerBackoffMs              int64   `config:"log.cleaner.backoff.ms"`
	LogCleanerMinCleanRatio          float64 `config:"log.cleaner.min.cleanable.ratio"`
	LogCleanerDeleteRetentionMs      int64   `config:"log.cleaner.delete.retention.ms"`
	LogCleanerMinCompactionLagMs     int64   `config:"log.cleaner.min.compaction.lag.ms"`

	// Replication
	ReplicaLagTimeMaxMs                      int64  `config:"replica.lag.time.max.ms"`
	ReplicaSocketTimeoutMs                   int32  `config:"replica.socket.timeout.ms"`
	ReplicaSocketReceiveBufferBytes          int32  `config:"replica.socket.receive.buffer.bytes"`
	ReplicaFetchMaxBytes                     int32  `config:"replica.fetch.max.bytes"`
	ReplicaFetchResponseMaxBytes             int32  `config:"replica.fetch.response.max.bytes"`
	ReplicaFetchWaitMaxMs                    int32  `config:"replica.fetch.wait.max.ms"`
	ReplicaFetchMinBytes                     int32  `config:"replica.fetch.min.bytes"`
	ReplicaFetchBackoffMs                    int32  `config:"replica.fetch.backoff.ms"`
	NumReplicaFetchers                       int32  `config:"num.replica.fetchers"`
	ReplicaHighWatermarkCheckpointIntervalMs int64  `config:"replica.high.watermark.checkpoint.interval.ms"`
	FetchPurgatoryPurgeIntervalRequests      int32  `config:"fetch.purgatory.purge.interval.requests"`
	ProducerPurgatoryPurgeIntervalRequests   int32  `config:"producer.purgatory.purge.interval.requests"`
	UncleanLeaderElectionEnable              bool   `config:"unclean.leader.election.enable"`
	InterBrokerProtocolVersion               string `config:"inter.broker.protocol.version"`

	// Controller, leader balance, controlled shutdown
	ControllerSocketTimeoutMs           int32 `config:"controller.socket.timeout.ms"`
	AutoLeaderRebalanceEnable           bool  `config:"auto.leader.rebalance.enable"`
	LeaderImbalancePerBrokerPercentage  int32 `config:"leader.imbalance.per.broker.percentage"`
	LeaderImbalanceCheckIntervalSeconds int64 `config:"leader.imbalance.check.interval.seconds"`
	ControlledShutdownEnable            bool  `config:"controlled.shutdown.enable"`
	ControlledShutdownMaxRetries        int32 `config:"controlled.shutdown.max.retries"`
	ControlledShutdownRetryBackoffMs    int64 `config:"controlled.shutdown.retry.backoff.ms"`

	// Group coordinator and offsets
	GroupMinSessionTimeoutMs        int32 `config:"group.min.session.timeout.ms"`
	GroupMaxSessionTimeoutMs        int32 `config:"group.max.session.timeout.ms"`
	OffsetsTopicPartitions          int32 `config:"offsets.topic.num.partitions"`
	OffsetsTopicReplicationFactor   int16 `config:"offsets.topic.replication.factor"`
	OffsetsTopicSegmentBytes        int32 `config:"offsets.topic.segment.bytes"`
	OffsetsTopicCompressionCodec    int32 `config:"offsets.topic.compression.codec"`
	OffsetsRetentionMinutes         int32 `config:"offsets.retention.minutes"`
	OffsetsRetentionCheckIntervalMs int64 `config:"offsets.retention.check.interval.ms"`
	OffsetCommitTimeoutMs           int32 `config:"offsets.commit.timeout.ms"`
	OffsetCommitRequiredAcks        int16 `config:"offsets.commit.required.acks"`
	OffsetMetadataMaxSize           int32 `config:"offset.metadata.max.bytes"`
	OffsetsLoadBufferSize           int32 `config:"offsets.load.buffer.size"`

	// Quotas
	ProducerQuotaBytesPerSecondDefault int64 `config:"quota.producer.default"`
	ConsumerQuotaBytesPerSecondDefault int64 `config:"quota.consumer.default"`
	NumQuotaSamples                    int32 `config:"quota.window.num"`
	QuotaWindowSizeSeconds             int32 `config:"quota.window.size.seconds"`
	NumReplicationQuotaSamples         int32 `config:"replication.quota.window.num"`
	ReplicationQuotaWindowSizeSeconds  int32 `config:"replication.quota.window.size.seconds"`

	// Security: SSL, SASL, authorizer/ACL
	AuthorizerClassName                 string            `config:"authorizer.class.name"`
	PrincipalBuilderClass               string            `config:"principal.builder.class"`
	SslProtocol                         string            `config:"ssl.protocol"`
	SslProvider                         *string           `config:"ssl.provider"`
	SslEnabledProtocols                 []string          `config:"ssl.enabled.protocols"`
	SslCipherSuites                     []string          `config:"ssl.cipher.suites"`
	SslKeystoreType                     string            `config:"ssl.keystore.type"`
	SslKeystoreLocation                 *string           `config:"ssl.keystore.location"`
	SslKeystorePassword                 *kconfig.Password `config:"ssl.keystore.password"`
	SslKeyPassword                      *kconfig.Password `config:"ssl.key.password"`
	SslTruststoreType                   string            `config:"ssl.truststore.type"`
	SslTruststoreLocation               *string           `config:"ssl.truststore.location"`
	SslTruststorePassword               *kconfig.Password `config:"ssl.truststore.password"`
	SslKeyManagerAlgorithm              string            `config:"ssl.keymanager.algorithm"`
	SslTrustManagerAlgorithm            string            `config:"ssl.trustmanager.algorithm"`
	SslEndpointIdentificationAlgorithm  *string           `config:"ssl.endpoint.identification.algorithm"`
	SslSecureRandomImplementation       *string           `config:"ssl.secure.random.implementation"`
	SslClientAuth                       string            `config:"ssl.client.auth"`
	SaslMechanismInterBrokerProtocol    string            `config:"sasl.mechanism.inter.broker.protocol"`
	SaslEnabledMechanisms               []string          `config:"sasl.enabled.mechanisms"`
	SaslKerberosServiceName             *string           `config:"sasl.kerberos.service.name"`
	SaslKerberosKinitCmd                string            `config:"sasl.kerberos.kinit.cmd"`
	SaslKerberosTicketRenewWindowFactor float64           `config:"sasl.kerberos.ticket.renew.window.factor"`
	SaslKerberosTicketRenewJitter       float64           `config:"sasl.kerberos.ticket.renew.jitter"`
	SaslKerberosMinTimeBeforeRelogin    int64             `config:"sasl.kerberos.min.time.before.relogin"`
	SaslKerberosPrincipalToLocalRules   []string          `config:"sasl.kerberos.principal.to.local.rules"`

	// Metrics
	MetricNumSamples      int32    `config:"metrics.num.samples"`
	MetricSampleWindowMs  int64    `config:"metrics.sample.window.ms"`
	MetricReporterClasses []string `config:"metric.reporters"`
	MetricRecordingLevel  string   `config:"metrics.recording.level"`

	// zkafka's own keys (Kafka exports metrics over JMX instead; docs/deviations.md)
	MetricsHTTPHost string `config:"metrics.http.host"`
	MetricsHTTPPort *int32 `config:"metrics.http.port"`
	// Kafka 0.11's leader-epoch truncation (KIP-101) as an opt-in (docs/deviations.md).
	LeaderEpochTruncationEnable bool `config:"zkafka.leader.epoch.truncation.enable"`
	// The JAAS file of SASL listeners (docs/deviations.md); nil: KAFKA_OPTS.
	JaasConfigFile *string `config:"zkafka.jaas.config.file"`
}
