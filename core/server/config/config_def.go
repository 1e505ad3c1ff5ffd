package config

import kconfig "github.com/zkafka/zkafka/clients/config"

// configDef returns the broker's key definitions, in the groups of KafkaConfig.scala: every key
// 0.10.2 defines, with its type, default and validator (the documentation strings are zkafka's
// own short notes), plus zkafka's two metrics.http keys at the end. Props has one field per key.
//
// Kafka 0.10.2: kafka.server.KafkaConfig.configDef.
func configDef() *kconfig.ConfigDef { return brokerConfigDef }

// JaasConfigFileProp names the JAAS file of SASL listeners (zkafka's own key; Kafka reads the
// java.security.auth.login.config system property, which zkafka also takes from KAFKA_OPTS).
const JaasConfigFileProp = "zkafka.jaas.config.file"

// MetricsHTTPPortProp names the port of the HTTP metrics reporter (zkafka's own key; Kafka
// exports over JMX on JMX_PORT instead). JMX_PORT is used when it is not set.
const MetricsHTTPPortProp = "metrics.http.port"

// MetricsHTTPHostProp names the address the reporter binds (all interfaces when empty, as JMX).
const MetricsHTTPHostProp = "metrics.http.host"

var brokerConfigDef = newConfigDef()

// ConfigNames lists every key the broker knows, sorted.
//
// Kafka 0.10.2: KafkaConfig.configNames.
func ConfigNames() []string { return configDef().SortedNames() }

func newConfigDef() *kconfig.ConfigDef {
	d := kconfig.NewConfigDef()
	// ZooKeeper
	d.Define("zookeeper.connect", kconfig.STRING, kconfig.NoDefault, nil, kconfig.HIGH, "host:port[,host:port...][/chroot]")
	d.Define("zookeeper.session.timeout.ms", kconfig.INT, "6000", nil, kconfig.HIGH, "ZK session timeout")
	d.Define("zookeeper.connection.timeout.ms", kconfig.INT, nil, nil, kconfig.HIGH, "max wait to establish the ZK connection")
	d.Define("zookeeper.sync.time.ms", kconfig.INT, "2000", nil, kconfig.MEDIUM, "how far a ZK follower may lag (unused by broker logic; old consumer uses it as rebalance backoff)")
	d.Define("zookeeper.set.acl", kconfig.BOOLEAN, "false", nil, kconfig.MEDIUM, "create znodes with secure ACLs; needs a JAAS file (else startup fails: zookeeper.set.acl is true, but the verification of the JAAS login file failed.)")
	// General
	d.Define("broker.id", kconfig.INT, "-1", nil, kconfig.HIGH, "broker id; -1 = use meta.properties or generate")
	d.Define("broker.id.generation.enable", kconfig.BOOLEAN, "true", nil, kconfig.HIGH, "allow ZK-generated ids (/brokers/seqid + reserved max)")
	d.Define("reserved.broker.max.id", kconfig.INT, "1000", kconfig.AtLeast(0), kconfig.HIGH, "highest id users may configure; generated ids start at this + 1")
	d.Define("message.max.bytes", kconfig.INT, "1000012", kconfig.AtLeast(0), kconfig.HIGH, "largest record batch (message set entry) the broker accepts; default for topic max.message.bytes")
	d.Define("num.network.threads", kconfig.INT, "3", kconfig.AtLeast(1), kconfig.HIGH, "socket processor threads per listener")
	d.Define("num.io.threads", kconfig.INT, "8", kconfig.AtLeast(1), kconfig.HIGH, "request handler threads")
	d.Define("background.threads", kconfig.INT, "10", kconfig.AtLeast(1), kconfig.MEDIUM, "scheduler threads (log cleanup, flush, checkpoints, ISR tasks)")
	d.Define("queued.max.requests", kconfig.INT, "500", kconfig.AtLeast(1), kconfig.MEDIUM, "request queue size before network threads block")
	d.Define("request.timeout.ms", kconfig.INT, "30000", nil, kconfig.MEDIUM, "inter-broker/controller client request timeout")
	d.Define("delete.topic.enable", kconfig.BOOLEAN, "false", nil, kconfig.HIGH, "allow the controller to delete topics")
	d.Define("auto.create.topics.enable", kconfig.BOOLEAN, "true", nil, kconfig.HIGH, "create unknown topics on Metadata requests")
	d.Define("num.partitions", kconfig.INT, "1", kconfig.AtLeast(1), kconfig.HIGH, "partitions for auto-created topics")
	d.Define("default.replication.factor", kconfig.INT, "1", nil, kconfig.HIGH, "RF for auto-created topics")
	d.Define("create.topic.policy.class.name", kconfig.CLASS, nil, nil, kconfig.MEDIUM, "validation plugin for CreateTopics requests")
	d.Define("compression.type", kconfig.STRING, "producer", nil, kconfig.HIGH, "final compression on disk: uncompressed, snappy, lz4, gzip, producer (keep producer's). Note: none is **not** valid here")
	// Socket server / listeners
	d.Define("listeners", kconfig.STRING, nil, nil, kconfig.HIGH, "comma list of NAME://host:port; empty host = default interface, 0.0.0.0 = all")
	d.Define("advertised.listeners", kconfig.STRING, nil, nil, kconfig.HIGH, "endpoints written to /brokers/ids/<id>")
	d.Define("listener.security.protocol.map", kconfig.STRING, "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,TRACE:TRACE", nil, kconfig.MEDIUM, "listener name → protocol; needed for non-protocol names")
	d.Define("port", kconfig.INT, "9092", nil, kconfig.HIGH, "DEPRECATED, used only if listeners unset")
	d.Define("host.name", kconfig.STRING, "", nil, kconfig.HIGH, "DEPRECATED, used only if listeners unset")
	d.Define("advertised.host.name", kconfig.STRING, nil, nil, kconfig.HIGH, "DEPRECATED, used only if advertised.listeners unset")
	d.Define("advertised.port", kconfig.INT, nil, nil, kconfig.HIGH, "DEPRECATED, as above")
	d.Define("inter.broker.listener.name", kconfig.STRING, nil, nil, kconfig.MEDIUM, "listener used between brokers; exclusive with security.inter.broker.protocol")
	d.Define("security.inter.broker.protocol", kconfig.STRING, "PLAINTEXT", nil, kconfig.MEDIUM, "protocol between brokers (listener name = protocol name)")
	d.Define("socket.send.buffer.bytes", kconfig.INT, "102400", nil, kconfig.HIGH, "SO_SNDBUF; -1 = OS default")
	d.Define("socket.receive.buffer.bytes", kconfig.INT, "102400", nil, kconfig.HIGH, "SO_RCVBUF; -1 = OS default")
	d.Define("socket.request.max.bytes", kconfig.INT, "104857600", kconfig.AtLeast(1), kconfig.HIGH, "max request size")
	d.Define("max.connections.per.ip", kconfig.INT, "2147483647", kconfig.AtLeast(1), kconfig.MEDIUM, "connection limit per IP")
	d.Define("max.connections.per.ip.overrides", kconfig.STRING, "", nil, kconfig.MEDIUM, "host:count,ip:count overrides (split at last :)")
	d.Define("connections.max.idle.ms", kconfig.LONG, "600000", nil, kconfig.MEDIUM, "idle connection close time")
	d.Define("broker.rack", kconfig.STRING, nil, nil, kconfig.HIGH, "rack id; written to broker znode; used by rack-aware assignment")
	// Log basics
	d.Define("log.dirs", kconfig.STRING, nil, nil, kconfig.HIGH, "data directories")
	d.Define("log.dir", kconfig.STRING, "/tmp/kafka-logs", nil, kconfig.HIGH, "single data directory fallback")
	d.Define("log.segment.bytes", kconfig.INT, "1073741824", kconfig.AtLeast(14), kconfig.HIGH, "max segment size")
	d.Define("log.index.size.max.bytes", kconfig.INT, "10485760", kconfig.AtLeast(4), kconfig.HIGH, "max offset index (and time index) file size")
	d.Define("log.index.interval.bytes", kconfig.INT, "4096", kconfig.AtLeast(0), kconfig.HIGH, "bytes between offset index entries")
	d.Define("log.preallocate", kconfig.BOOLEAN, "false", nil, kconfig.MEDIUM, "preallocate segment files")
	d.Define("log.message.format.version", kconfig.STRING, "0.10.2-IV0", nil, kconfig.HIGH, "on-disk message format; 0.10.0+ = magic 1")
	d.Define("log.message.timestamp.type", kconfig.STRING, "CreateTime", kconfig.ValidString("CreateTime", "LogAppendTime"), kconfig.HIGH, "CreateTime or LogAppendTime")
	d.Define("log.message.timestamp.difference.max.ms", kconfig.LONG, "9223372036854775807", kconfig.AtLeast(0), kconfig.MEDIUM, "max absolute difference between broker time and record timestamp (CreateTime only)")
	d.Define("num.recovery.threads.per.data.dir", kconfig.INT, "1", kconfig.AtLeast(1), kconfig.HIGH, "threads for log recovery at startup and flush at shutdown")
	d.Define("min.insync.replicas", kconfig.INT, "1", kconfig.AtLeast(1), kconfig.HIGH, "min ISR size for acks=all produce")
	// Log retention, roll, flush
	d.Define("log.retention.ms", kconfig.LONG, nil, nil, kconfig.HIGH, "retention time; wins over minutes/hours; -1 (any negative) = unlimited")
	d.Define("log.retention.minutes", kconfig.INT, nil, nil, kconfig.HIGH, "used if .ms unset")
	d.Define("log.retention.hours", kconfig.INT, "168", nil, kconfig.HIGH, "used if both above unset")
	d.Define("log.retention.bytes", kconfig.LONG, "-1", nil, kconfig.HIGH, "per-partition size limit; -1 = none")
	d.Define("log.retention.check.interval.ms", kconfig.LONG, "300000", kconfig.AtLeast(1), kconfig.HIGH, "retention check period")
	d.Define("log.roll.ms", kconfig.LONG, nil, nil, kconfig.HIGH, "max segment age; wins over hours")
	d.Define("log.roll.hours", kconfig.INT, "168", kconfig.AtLeast(1), kconfig.HIGH, "segment age fallback")
	d.Define("log.roll.jitter.ms", kconfig.LONG, nil, nil, kconfig.MEDIUM, "max random jitter subtracted from roll time")
	d.Define("log.roll.jitter.hours", kconfig.INT, "0", kconfig.AtLeast(0), kconfig.MEDIUM, "jitter fallback")
	d.Define("log.flush.interval.messages", kconfig.LONG, "9223372036854775807", kconfig.AtLeast(1), kconfig.HIGH, "fsync after this many messages")
	d.Define("log.flush.interval.ms", kconfig.LONG, nil, nil, kconfig.HIGH, "fsync after this time")
	d.Define("log.flush.scheduler.interval.ms", kconfig.LONG, "9223372036854775807", nil, kconfig.MEDIUM, "how often the flusher checks")
	d.Define("log.flush.offset.checkpoint.interval.ms", kconfig.INT, "60000", kconfig.AtLeast(0), kconfig.MEDIUM, "recovery-point checkpoint period")
	d.Define("log.segment.delete.delay.ms", kconfig.LONG, "60000", kconfig.AtLeast(0), kconfig.HIGH, "delay before deleting a .deleted file")
	d.Define("log.cleanup.policy", kconfig.LIST, "delete", kconfig.ValidList("compact", "delete"), kconfig.HIGH, "delete, compact or both")
	// Log cleaner (compaction)
	d.Define("log.cleaner.enable", kconfig.BOOLEAN, "true", nil, kconfig.HIGH, "run the cleaner (needed for __consumer_offsets)")
	d.Define("log.cleaner.threads", kconfig.INT, "1", kconfig.AtLeast(0), kconfig.MEDIUM, "cleaner threads")
	d.Define("log.cleaner.io.max.bytes.per.second", kconfig.DOUBLE, "1.7976931348623157E308", nil, kconfig.MEDIUM, "I/O throttle")
	d.Define("log.cleaner.dedupe.buffer.size", kconfig.LONG, "134217728", nil, kconfig.MEDIUM, "total dedupe memory; must be > 1 MiB per thread")
	d.Define("log.cleaner.io.buffer.size", kconfig.INT, "524288", kconfig.AtLeast(0), kconfig.MEDIUM, "I/O buffer memory")
	d.Define("log.cleaner.io.buffer.load.factor", kconfig.DOUBLE, "0.9", nil, kconfig.MEDIUM, "dedupe map load factor")
	d.Define("log.cleaner.backoff.ms", kconfig.LONG, "15000", kconfig.AtLeast(0), kconfig.MEDIUM, "sleep when nothing to clean")
	d.Define("log.cleaner.min.cleanable.ratio", kconfig.DOUBLE, "0.5", nil, kconfig.MEDIUM, "min dirty/total ratio to clean")
	d.Define("log.cleaner.delete.retention.ms", kconfig.LONG, "86400000", nil, kconfig.MEDIUM, "tombstone retention")
	d.Define("log.cleaner.min.compaction.lag.ms", kconfig.LONG, "0", nil, kconfig.MEDIUM, "min age before a record may be compacted")
	// Replication
	d.Define("replica.lag.time.max.ms", kconfig.LONG, "10000", nil, kconfig.HIGH, "follower not caught up for this long is removed from ISR (ISR check runs every half of it)")
	d.Define("replica.socket.timeout.ms", kconfig.INT, "30000", nil, kconfig.MEDIUM, "follower fetch socket timeout (must be ≥ fetch wait)")
	d.Define("replica.socket.receive.buffer.bytes", kconfig.INT, "65536", nil, kconfig.MEDIUM, "follower socket receive buffer")
	d.Define("replica.fetch.max.bytes", kconfig.INT, "1048576", kconfig.AtLeast(0), kconfig.HIGH, "per-partition fetch size (soft limit)")
	d.Define("replica.fetch.response.max.bytes", kconfig.INT, "10485760", kconfig.AtLeast(0), kconfig.MEDIUM, "whole fetch response size (soft)")
	d.Define("replica.fetch.wait.max.ms", kconfig.INT, "500", nil, kconfig.HIGH, "follower fetch max wait")
	d.Define("replica.fetch.min.bytes", kconfig.INT, "1", nil, kconfig.HIGH, "follower fetch min bytes")
	d.Define("replica.fetch.backoff.ms", kconfig.INT, "1000", kconfig.AtLeast(0), kconfig.MEDIUM, "sleep after a fetch error")
	d.Define("num.replica.fetchers", kconfig.INT, "1", nil, kconfig.HIGH, "fetcher threads per source broker")
	d.Define("replica.high.watermark.checkpoint.interval.ms", kconfig.LONG, "5000", nil, kconfig.HIGH, "HW checkpoint file write period")
	d.Define("fetch.purgatory.purge.interval.requests", kconfig.INT, "1000", nil, kconfig.MEDIUM, "purgatory purge interval")
	d.Define("producer.purgatory.purge.interval.requests", kconfig.INT, "1000", nil, kconfig.MEDIUM, "purgatory purge interval")
	d.Define("unclean.leader.election.enable", kconfig.BOOLEAN, "true", nil, kconfig.HIGH, "allow non-ISR leader election (when false, the last ISR member is never removed from the ISR)")
	d.Define("inter.broker.protocol.version", kconfig.STRING, "0.10.2-IV0", nil, kconfig.HIGH, "protocol for broker↔broker and controller requests; also selects broker znode JSON v4 vs v2")
	// zkafka extension (not a 0.10.2 key): Kafka 0.11's leader-epoch truncation (KIP-101); every
	// broker of a cluster must agree (KafkaServer refuses to start otherwise).
	d.Define("zkafka.leader.epoch.truncation.enable", kconfig.BOOLEAN, "false", nil, kconfig.MEDIUM, "zkafka extension: followers truncate to the leader's end offset for their latest leader epoch (OffsetsForLeaderEpoch, leader-epoch-checkpoint) instead of to their high watermark; same value on every broker")
	// zkafka extension: the JAAS file of SASL listeners, instead of (and before) KAFKA_OPTS's
	// -Djava.security.auth.login.config=FILE.
	d.Define(JaasConfigFileProp, kconfig.STRING, nil, nil, kconfig.MEDIUM, "zkafka extension: JAAS file with the KafkaServer section of SASL listeners and the Client section of the ZooKeeper login; when unset, -Djava.security.auth.login.config=FILE in KAFKA_OPTS")
	// Controller, leader balance, controlled shutdown
	d.Define("controller.socket.timeout.ms", kconfig.INT, "30000", nil, kconfig.HIGH, "controller→broker channel timeout; also controlled-shutdown connect timeout")
	d.Define("auto.leader.rebalance.enable", kconfig.BOOLEAN, "true", nil, kconfig.HIGH, "run preferred-leader rebalance task")
	d.Define("leader.imbalance.per.broker.percentage", kconfig.INT, "10", nil, kconfig.HIGH, "trigger threshold (%)")
	d.Define("leader.imbalance.check.interval.seconds", kconfig.LONG, "300", nil, kconfig.HIGH, "task period (first run after 5 s)")
	d.Define("controlled.shutdown.enable", kconfig.BOOLEAN, "true", nil, kconfig.HIGH, "ask controller to move leaders before stopping")
	d.Define("controlled.shutdown.max.retries", kconfig.INT, "3", nil, kconfig.HIGH, "attempts")
	d.Define("controlled.shutdown.retry.backoff.ms", kconfig.LONG, "5000", nil, kconfig.HIGH, "sleep between attempts")
	// Group coordinator and offsets
	d.Define("group.min.session.timeout.ms", kconfig.INT, "6000", nil, kconfig.HIGH, "min consumer session timeout")
	d.Define("group.max.session.timeout.ms", kconfig.INT, "300000", nil, kconfig.HIGH, "max consumer session timeout")
	d.Define("offsets.topic.num.partitions", kconfig.INT, "50", kconfig.AtLeast(1), kconfig.HIGH, "partitions of __consumer_offsets")
	d.Define("offsets.topic.replication.factor", kconfig.SHORT, "3", kconfig.AtLeast(1), kconfig.HIGH, "RF of __consumer_offsets (capped at live brokers at creation)")
	d.Define("offsets.topic.segment.bytes", kconfig.INT, "104857600", kconfig.AtLeast(1), kconfig.MEDIUM, "segment size of __consumer_offsets")
	d.Define("offsets.topic.compression.codec", kconfig.INT, "0", nil, kconfig.MEDIUM, "0 none, 1 gzip, 2 snappy, 3 lz4")
	d.Define("offsets.retention.minutes", kconfig.INT, "1440", kconfig.AtLeast(1), kconfig.HIGH, "committed offset retention")
	d.Define("offsets.retention.check.interval.ms", kconfig.LONG, "600000", kconfig.AtLeast(1), kconfig.MEDIUM, "expiry check period")
	d.Define("offsets.commit.timeout.ms", kconfig.INT, "5000", kconfig.AtLeast(1), kconfig.MEDIUM, "commit wait for replication")
	d.Define("offsets.commit.required.acks", kconfig.SHORT, "-1", nil, kconfig.MEDIUM, "acks for offset commits (-1..RF)")
	d.Define("offset.metadata.max.bytes", kconfig.INT, "4096", nil, kconfig.MEDIUM, "max metadata string per committed offset (also for ZK-stored v0 commits)")
	d.Define("offsets.load.buffer.size", kconfig.INT, "5242880", kconfig.AtLeast(1), kconfig.MEDIUM, "read batch when loading offsets")
	// Quotas
	d.Define("quota.producer.default", kconfig.LONG, "9223372036854775807", kconfig.AtLeast(1), kconfig.MEDIUM, "DEPRECATED per-client-id produce quota (B/s) when ZK has no quota")
	d.Define("quota.consumer.default", kconfig.LONG, "9223372036854775807", kconfig.AtLeast(1), kconfig.MEDIUM, "DEPRECATED fetch quota")
	d.Define("quota.window.num", kconfig.INT, "11", kconfig.AtLeast(1), kconfig.MEDIUM, "client quota samples")
	d.Define("quota.window.size.seconds", kconfig.INT, "1", kconfig.AtLeast(1), kconfig.MEDIUM, "client quota sample span")
	d.Define("replication.quota.window.num", kconfig.INT, "11", kconfig.AtLeast(1), kconfig.MEDIUM, "replication quota samples")
	d.Define("replication.quota.window.size.seconds", kconfig.INT, "1", kconfig.AtLeast(1), kconfig.MEDIUM, "replication quota sample span")
	// Security: SSL, SASL, authorizer/ACL
	d.Define("authorizer.class.name", kconfig.STRING, "", nil, kconfig.MEDIUM, "authorizer class; kafka.security.auth.SimpleAclAuthorizer enables ZK ACLs")
	d.Define("principal.builder.class", kconfig.CLASS, "org.apache.kafka.common.security.auth.DefaultPrincipalBuilder", nil, kconfig.MEDIUM, "principal builder")
	d.Define("ssl.protocol", kconfig.STRING, "TLS", nil, kconfig.MEDIUM, "")
	d.Define("ssl.provider", kconfig.STRING, nil, nil, kconfig.MEDIUM, "")
	d.Define("ssl.enabled.protocols", kconfig.LIST, "TLSv1.2,TLSv1.1,TLSv1", nil, kconfig.MEDIUM, "")
	d.Define("ssl.cipher.suites", kconfig.LIST, nil, nil, kconfig.MEDIUM, "")
	d.Define("ssl.keystore.type", kconfig.STRING, "JKS", nil, kconfig.MEDIUM, "")
	d.Define("ssl.keystore.location", kconfig.STRING, nil, nil, kconfig.MEDIUM, "")
	d.Define("ssl.keystore.password", kconfig.PASSWORD, nil, nil, kconfig.MEDIUM, "")
	d.Define("ssl.key.password", kconfig.PASSWORD, nil, nil, kconfig.MEDIUM, "")
	d.Define("ssl.truststore.type", kconfig.STRING, "JKS", nil, kconfig.MEDIUM, "")
	d.Define("ssl.truststore.location", kconfig.STRING, nil, nil, kconfig.MEDIUM, "")
	d.Define("ssl.truststore.password", kconfig.PASSWORD, nil, nil, kconfig.MEDIUM, "")
	d.Define("ssl.keymanager.algorithm", kconfig.STRING, "SunX509", nil, kconfig.MEDIUM, "")
	d.Define("ssl.trustmanager.algorithm", kconfig.STRING, "PKIX", nil, kconfig.MEDIUM, "")
	d.Define("ssl.endpoint.identification.algorithm", kconfig.STRING, nil, nil, kconfig.MEDIUM, "")
	d.Define("ssl.secure.random.implementation", kconfig.STRING, nil, nil, kconfig.MEDIUM, "")
	d.Define("ssl.client.auth", kconfig.STRING, "none", kconfig.ValidString("required", "requested", "none"), kconfig.MEDIUM, "required, requested, none")
	d.Define("sasl.mechanism.inter.broker.protocol", kconfig.STRING, "GSSAPI", nil, kconfig.MEDIUM, "must be in enabled mechanisms when inter-broker uses SASL")
	d.Define("sasl.enabled.mechanisms", kconfig.LIST, "GSSAPI", nil, kconfig.MEDIUM, "e.g. GSSAPI,PLAIN,SCRAM-SHA-256,SCRAM-SHA-512")
	d.Define("sasl.kerberos.service.name", kconfig.STRING, nil, nil, kconfig.MEDIUM, "")
	d.Define("sasl.kerberos.kinit.cmd", kconfig.STRING, "/usr/bin/kinit", nil, kconfig.MEDIUM, "")
	d.Define("sasl.kerberos.ticket.renew.window.factor", kconfig.DOUBLE, "0.8", nil, kconfig.MEDIUM, "")
	d.Define("sasl.kerberos.ticket.renew.jitter", kconfig.DOUBLE, "0.05", nil, kconfig.MEDIUM, "")
	d.Define("sasl.kerberos.min.time.before.relogin", kconfig.LONG, "60000", nil, kconfig.MEDIUM, "")
	d.Define("sasl.kerberos.principal.to.local.rules", kconfig.LIST, "DEFAULT", nil, kconfig.MEDIUM, "")
	// Metrics
	d.Define("metrics.num.samples", kconfig.INT, "2", kconfig.AtLeast(1), kconfig.MEDIUM, "samples per metric")
	d.Define("metrics.sample.window.ms", kconfig.LONG, "30000", kconfig.AtLeast(1), kconfig.MEDIUM, "sample window")
	d.Define("metric.reporters", kconfig.LIST, "", nil, kconfig.MEDIUM, "reporter classes")
	d.Define("metrics.recording.level", kconfig.STRING, "INFO", nil, kconfig.MEDIUM, "INFO or DEBUG")
	// zkafka: the HTTP metrics reporter standing in for JMX (core/server/kafka_server_metrics.go)
	d.Define(MetricsHTTPHostProp, kconfig.STRING, "", nil, kconfig.LOW, "address the HTTP metrics reporter binds (all interfaces when empty)")
	d.Define(MetricsHTTPPortProp, kconfig.INT, nil, kconfig.Between(0, 65535), kconfig.LOW, "port of the HTTP metrics reporter; JMX_PORT is used when unset")
	return d
}
