// Package zkoffsets holds the tools that copy old-consumer offsets out of and into ZooKeeper,
// run through kafka-run-class.sh: ExportZkOffsets writes "/consumers/<g>/offsets/<t>/<p>:<offset>"
// lines to a file; ImportZkOffsets writes such a file back; UpdateOffsetsInZK sets a group's
// offsets of a topic to the partition leaders' earliest or latest offsets.
//
// Kafka 0.10.2: kafka.tools.ExportZkOffsets, kafka.tools.ImportZkOffsets and
// kafka.tools.UpdateOffsetsInZK (core/src/main/scala/kafka/tools).
//
// Bookmap: 《Kafka技术内幕》 §3.5.1 (offsets committed to ZooKeeper).
package zkoffsets
