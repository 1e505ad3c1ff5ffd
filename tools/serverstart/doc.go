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
// Logging goes to stdout in log4j's console layout, "[yyyy-MM-dd HH:mm:ss,SSS] LEVEL message
// (logger)", as config/log4j.properties' stdout appender prints it. With -daemon the process
// starts itself again in the background with its output in $LOG_DIR/kafkaServer.out.
package serverstart
