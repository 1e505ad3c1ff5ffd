package log

import "github.com/zkafka/zkafka/clients/record"

// FetchDataInfo is the result of a log read: where the read started and the bytes found. For a read
// from a segment, Records is a slice view of the segment's FileRecords, so a FetchResponse can send
// it with sendfile without copying it through user space.
//
// FirstEntryIncomplete is set when the first log entry did not fit in the size limit (Fetch v3 then
// answers with an empty set rather than a partial message).
//
// Kafka 0.10.2: kafka.server.FetchDataInfo (moved to core/log, docs/design.md §1.2 row 5).
type FetchDataInfo struct {
	FetchOffsetMetadata  LogOffsetMetadata
	Records              record.Records
	FirstEntryIncomplete bool
}
