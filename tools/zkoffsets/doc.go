// Package zkoffsets holds the tools that copy old-consumer offsets out of and into ZooKeeper,
// run through kafka-run-class.sh: ExportZkOffsets writes "/consumers/<g>/offsets/<t>/<p>:<offset>"
// lines to a file; ImportZkOffsets writes such a file back.
//
// Kafka 0.10.2: kafka.tools.ExportZkOffsets and kafka.tools.ImportZkOffsets
// (core/src/main/scala/kafka/tools).
//
// Bookmap: 《Kafka技术内幕》 §3.5.1 (offsets committed to ZooKeeper).
package zkoffsets
