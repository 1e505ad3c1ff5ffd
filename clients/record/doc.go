// Package record implements Kafka 0.10.2's message format: messages (records) in magic 0 and 1,
// message sets in memory and in segment files, compressed wrapper messages, and zero-copy sends
// of file slices.
//
// Kafka 0.10.2: org.apache.kafka.common.record (clients/src/main/java/org/apache/kafka/common/record),
// with kafka.message (core/src/main/scala/kafka/message: Message, ByteBufferMessageSet,
// CompressionCodec), which in 0.10.2 is a thin layer over the same classes.
//
// Bookmap: the message and message-set format (log storage chapters), compressed message sets,
// FileMessageSet/FileRecords reads and zero-copy transfer in the fetch path.
//
// # Formats
//
// A message set is log entries back to back, with no count or header. A log entry is
// INT64 offset, INT32 message_size, then the message:
//
//	crc INT32 (CRC-32 IEEE of everything after it) | magic INT8 | attributes INT8 |
//	[timestamp INT64, magic 1 only] | key_length INT32 (-1 = null) | key |
//	value_length INT32 (-1 = null) | value
//
// Attributes: bits 0-2 the codec (0 none, 1 gzip, 2 snappy, 3 lz4), bit 3 the timestamp type
// (magic 1 only: 0 CreateTime, 1 LogAppendTime). A compressed message (a "wrapper") has a null key
// and, as value, the compressed bytes of an inner message set. The wrapper's offset is its last
// inner message's. Inner offsets are absolute for magic 0 and relative to the first (0, 1, ...)
// for magic 1; readers rebase them as wrapperOffset - lastInner + inner. A magic 1 wrapper's
// timestamp is the max inner timestamp (CreateTime) or the append time (LogAppendTime, which then
// applies to every inner message).
//
// # Compression libraries
//
//   - gzip: github.com/klauspost/compress/gzip, a faster drop-in for compress/gzip producing
//     standard RFC 1952 members. The reader follows java.util.zip.GZIPInputStream: concatenated
//     members are read; trailing bytes that are not a member are ignored.
//   - snappy: github.com/klauspost/compress/snappy for the raw block codec. Java Kafka wraps it in
//     snappy-java's own stream framing ("xerial": a 16-byte header, then length-prefixed blocks),
//     not the official snappy framing; this package writes and reads that framing itself (a few
//     lines; the library's xerial helper decodes with the more permissive s2 decoder, while blocks are
//     decoded here with the strict standard-snappy decoder, as snappy-java's native code does), and
//     reads a payload without the header as one raw block, as snappy-java does.
//   - lz4: github.com/pierrec/lz4/v4 for the block codec only. The frame is built and parsed here
//     (KafkaLZ4BlockOutputStream/InputStream) because of KAFKA-3160: Kafka computed the frame
//     header checksum over the magic bytes too. 0.10.2 keeps that broken checksum when writing
//     magic 0 wrappers (and skips the check when reading them), and uses the correct one for
//     magic 1 (and verifies it). pierrec/lz4's frame Writer/Reader always use the correct
//     checksum, so they can neither produce nor accept magic 0 frames.
//
// # Invariants
//
//   - Decoders never panic on input: every length is checked against the bytes present. Iterators
//     check each message's internal lengths before yielding it, so accessors on a yielded Record
//     read real fields. A trailing partial entry ends iteration without error (a fetch may stop
//     mid-message); bad sizes, undecodable wrappers, nested compression and CRC failures are
//     errors wrapping ErrCorruptRecord / ErrInvalidRecord, with the byte position.
//   - Shallow entries of a MemoryRecords are views into its bytes; the broker rewrites offsets and
//     timestamps in place through LogEntry.SetOffset/SetCreateTime/SetLogAppendTime.
//   - FileRecords never uses the file's shared position: appends use WriteAt at the logical end,
//     reads use ReadAt, and WriteTo sends with sendfile(2) at an explicit offset. Slices (Read)
//     share the open file and copy nothing.
//
// # Locks
//
// None. MemoryRecords and MemoryRecordsBuilder are not safe for concurrent mutation. A FileRecords
// has one appender (the caller holds the log's lock, as in Kafka) and any number of concurrent
// readers; its size is atomic.
package record
