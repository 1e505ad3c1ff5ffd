// Package mirrormaker is kafka-mirror-maker: it copies topics from one Kafka cluster to another
// with N MirrorMakerThreads, each reading one stream of a consumer of the source cluster and
// handing every record, through a MirrorMakerMessageHandler, to one KafkaProducer of the target
// cluster shared by all threads.
//
// No data is lost (the settings 0.10.2 defaults to): the producer runs with acks=all,
// retries=Integer.MAX_VALUE, max.block.ms=Long.MAX_VALUE and
// max.in.flight.requests.per.connection=1 unless the producer config says otherwise; the
// consumer's auto commit is off; every offset.commit.interval.ms (and before a rebalance releases
// the partitions) a thread flushes the producer, so that every record it handed over is
// acknowledged by the target, and only then commits the consumer's offsets. A send that fails
// for good stops the mirror maker (abort.on.send.failure=true) without committing, so a restart
// copies again from the last commit: the target may hold duplicates, never gaps.
//
// The consumer is the old (ZooKeeper) one when --consumer.config has zookeeper.connect, with
// --whitelist or --blacklist as its TopicFilter; consumer.timeout.ms defaults to 10000 so that a
// quiet stream still commits. Each thread has its own ZookeeperConsumerConnector (client.id
// <group.id>-<i>) with one stream.
//
// Kafka 0.10.2: kafka.tools.MirrorMaker (core/src/main/scala/kafka/tools/MirrorMaker.scala:
// MirrorMakerThread, MirrorMakerOldConsumer, MirrorMakerProducer, MirrorMakerProducerCallback,
// MirrorMakerMessageHandler, defaultMirrorMakerMessageHandler,
// InternalRebalanceListenerForOldConsumer).
//
// Bookmap: 《Kafka技术内幕》 ch.8.1 (8.1.1 the single-host demo, 8.1.2 the mirroring flow),
// 《深入理解Kafka》 §9.3.
//
// Deviations (docs/deviations.md): --message.handler and --consumer.rebalance.listener name
// entries of Go registries (RegisterMessageHandler, RegisterRebalanceListener) instead of Java
// classes; the new consumer (--new.consumer, or a consumer config without zookeeper.connect) is
// refused with exit 1 until zkafka has one.
package mirrormaker
