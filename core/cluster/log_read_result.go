package cluster

import (
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/log"
)

// LogReadResult is what reading one partition for a fetch produced: the data, the HW and LEO seen
// when it was read, and the error if the read failed.
//
// Kafka 0.10.2: kafka.server.LogReadResult (lives here because Partition takes it).
type LogReadResult struct {
	Info               log.FetchDataInfo
	HW                 int64
	LeaderLogEndOffset int64
	FetchTimeMs        int64
	ReadSize           int
	Err                error
}

// UnknownLogReadResult is the result that resets a remote replica's position (makeLeader).
func UnknownLogReadResult(fetchSize int) LogReadResult {
	return LogReadResult{
		Info:               log.FetchDataInfo{FetchOffsetMetadata: log.UnknownOffsetMetadata, Records: record.NewMemoryRecords(nil)},
		HW:                 -1,
		LeaderLogEndOffset: -1,
		FetchTimeMs:        -1,
		ReadSize:           fetchSize,
	}
}
