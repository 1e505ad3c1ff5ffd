// Package serverstart is `zkafka server-start` (bin/kafka-server-start.sh): it loads
// server.properties, applies --override k=v options, starts a broker and runs it until SIGTERM
// or SIGINT, which shut it down cleanly.
//
// Kafka 0.10.2: kafka.Kafka (core/src/main/scala/kafka/Kafka.scala) and
// kafka.server.KafkaServerStartable, with bin/kafka-server-start.sh's argument handling
// (-daemon, the usage line).
//
// Bookmap: 《Apache Kafka源码剖析》 §4.1 (KafkaServer startup); 001 ch.5 (running a broker).
//
// Logging follows config/log4j.properties (core/utils/log4j), found as kafka-server-start.sh
// finds it: KAFKA_LOG4J_OPTS="-Dlog4j.configuration=file:..." when set, else the config/ directory
// beside the binary's bin/; the files go to LOG_DIR (default: logs/ beside bin/), which
// ${kafka.logs.dir} names. With the shipped file the broker writes server.log, state-change.log,
// controller.log, kafka-request.log, log-cleaner.log and kafka-authorizer.log there, rolled
// hourly, and its console lines to stdout in the layout "[yyyy-MM-dd HH:mm:ss,SSS] LEVEL message
// (logger)". Without a configuration file everything goes to stdout. With -daemon the process
// starts itself again in the background with its output in $LOG_DIR/kafkaServer.out.
package serverstart
