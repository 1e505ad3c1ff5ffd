// Package dumplogsegments prints the contents of log segment files (.log, .index,
// .timeindex) and checks their indexes, line for line as Kafka's tool does.
//
// Kafka 0.10.2: kafka.tools.DumpLogSegments (core/src/main/scala/kafka/tools/DumpLogSegments.scala)
//
// Run as `zkafka run-class kafka.tools.DumpLogSegments --files a.log,b.index` (or the
// `dump-log-segments` subcommand). The package reads the files on its own, read-only:
// unlike Kafka, which opens indexes through the broker's OffsetIndex (creating a missing
// file), dumping never writes to the segment directory. The index sanity check is the
// broker's own (core/log OffsetIndex/TimeIndex.SanityCheck).
//
// Output (kafka.tools.DumpLogSegments'): per file "Dumping <file>"; for a .log "Starting offset: N" and
// one line per shallow (or, with --deep-iteration, per inner) message; for indexes one
// line per entry. The verification summaries Kafka prints to stderr go to Options.Stderr,
// after all files, in Kafka's order (index mismatches, time-index problems, non-consecutive
// offsets). Kafka keeps some of these lists by prepending, so they come out newest first;
// that order is kept.
package dumplogsegments
