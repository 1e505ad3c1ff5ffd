// Package log4j sends the broker's log entries where Kafka's log4j configuration sends them:
// it reads a log4j.properties file (the subset of log4j 1.2's PropertyConfigurator Kafka's
// config/log4j.properties and its users need), builds its appenders (console, file, daily
// rolling file, size rolling file) with their PatternLayouts, and routes every logrus entry by the
// log4j logger name it carries (the "logger" field) to the appenders of that logger and of its
// ancestors, up to the first one whose additivity is false, if the entry's level passes the
// logger's effective level.
//
// Kafka 0.10.2: config/log4j.properties and bin/kafka-run-class.sh (LOG_DIR,
// KAFKA_LOG4J_OPTS, -Dkafka.logs.dir), read by log4j 1.2 (PropertyConfigurator, PatternLayout,
// ConsoleAppender, FileAppender, DailyRollingFileAppender, RollingFileAppender). Log4j is a
// library Kafka depends on, not a Kafka class; this package reproduces the part of it that decides
// which file a line goes to and what the line looks like, so that server.log, state-change.log,
// controller.log, kafka-request.log, log-cleaner.log and kafka-authorizer.log appear under LOG_DIR
// as the books describe.
//
// Bookmap: 《Apache Kafka源码剖析》 §4.1 (starting a broker), the controller chapters (state-change.log
// and controller.log); docs/design.md §5.
//
// # Levels and separate loggers
//
// A logrus.Logger checks an entry's level before the entry is built, against a single level.
// Repository.Loggers therefore hands out one logrus.Logger per requested logger name, whose level
// is the finest effective level among the names it may carry (its own subtree, minus the subtrees
// requested separately); the formatter then applies each entry's own effective level. A logger at
// TRACE (kafka.controller, state.change.logger in Kafka's file) so costs nothing to the others.
//
// # What is not supported
//
// Appender classes other than the four above and layouts other than PatternLayout and
// SimpleLayout are reported on stderr as log4j reports a class it cannot load, and skipped.
// Location conversions (%C %F %L %M %l) print "?", %t prints "main", %x and %X print nothing.
package log4j
