package log

import (
	"errors"
	"fmt"

	"github.com/zkafka/zkafka/clients/record"
)

// ListOffsets special timestamps (ListOffsetRequest.EARLIEST_TIMESTAMP / LATEST_TIMESTAMP).
const (
	EarliestTimestamp int64 = -2
	LatestTimestamp   int64 = -1
)

// Read returns up to maxLength bytes of the log starting at startOffset, without going past
// maxOffset's entry when maxOffset is given (consumers read up to the high watermark). Reading at the
// log end gives an empty set; an offset beyond it or before the first segment is
// ErrOffsetOutOfRange. It takes no lock: the active segment is read only up to the position
// published with the log end offset.
func (l *Log) Read(startOffset int64, maxLength int, maxOffset *int64, minOneMessage bool) (*FetchDataInfo, error) {
	next := l.LogEndOffsetMetadata()
	if startOffset == next.MessageOffset {
		return &FetchDataInfo{FetchOffsetMetadata: next, Records: record.NewMemoryRecords(nil)}, nil
	}
	if maxOffset != nil && *maxOffset >= next.MessageOffset {
		// A high watermark at the log end bounds nothing the log end offset's position does not
		// already bound (maxPosition below), so skip locating it: translating it scanned from the
		// last index entry to the end of the active segment on every consumer fetch.
		maxOffset = nil
	}
	segs := l.LogSegments()
	i := floorSegment(segs, startOffset)
	if len(segs) == 0 || startOffset > next.MessageOffset || i < 0 {
		first := next.MessageOffset
		if len(segs) > 0 {
			first = segs[0].BaseOffset()
		}
		return nil, fmt.Errorf("request for offset %d but we only have log segments in the range %d to %d: %w",
			startOffset, first, next.MessageOffset, ErrOffsetOutOfRange)
	}
	for ; i < len(segs); i++ {
		seg := segs[i]
		maxPosition := seg.Size()
		switch {
		case seg.BaseOffset() == next.SegmentBaseOffset:
			// The active segment as of the log end offset we read: only the bytes published with
			// that offset are visible, not what an append in progress has written since.
			maxPosition = int64(next.RelativePositionInSegment)
		case seg.BaseOffset() > next.SegmentBaseOffset:
			// Rolled after we read the log end offset: nothing in it is visible yet.
			maxPosition = 0
		}
		fetch, err := seg.Read(startOffset, maxOffset, maxLength, maxPosition, minOneMessage)
		if err != nil {
			return nil, err
		}
		if fetch != nil {
			return fetch, nil
		}
	}
	// startOffset is past the last message of the last segment (e.g. compacted away).
	return &FetchDataInfo{FetchOffsetMetadata: l.LogEndOffsetMetadata(), Records: record.NewMemoryRecords(nil)}, nil
}

// ConvertToOffsetMetadata locates offset physically, or returns UnknownOffsetMetadata.
func (l *Log) ConvertToOffsetMetadata(offset int64) (LogOffsetMetadata, error) {
	fetch, err := l.Read(offset, 1, nil, false)
	if errors.Is(err, ErrOffsetOutOfRange) {
		return UnknownOffsetMetadata, nil
	}
	if err != nil {
		return UnknownOffsetMetadata, err
	}
	return fetch.FetchOffsetMetadata, nil
}

// FetchOffsetsByTimestamp answers ListOffsets v1: EarliestTimestamp → (-1, log start offset),
// LatestTimestamp → (-1, log end offset), otherwise the first message whose timestamp is >= the
// target, found through the first segment whose largest timestamp reaches it. ok is false when no
// message qualifies. Timestamp searches need message format 0.10.0 or later.
func (l *Log) FetchOffsetsByTimestamp(targetTimestamp int64) (TimestampOffset, bool, error) {
	c := l.Config()
	if c.MessageFormatMagic < record.MagicValueV1 && targetTimestamp != EarliestTimestamp && targetTimestamp != LatestTimestamp {
		return TimestampOffset{}, false, fmt.Errorf("cannot search offsets based on timestamp because message format version for partition %s is %s which is earlier than the minimum required version 0.10.0-IV0: %w",
			l.topicPartition, c.MessageFormatVersion, ErrUnsupportedForMessageFormat)
	}
	segs := l.LogSegments()
	switch targetTimestamp {
	case EarliestTimestamp:
		return TimestampOffset{Timestamp: record.NoTimestamp, Offset: segs[0].BaseOffset()}, true, nil
	case LatestTimestamp:
		return TimestampOffset{Timestamp: record.NoTimestamp, Offset: l.LogEndOffset()}, true, nil
	}
	for _, s := range segs {
		if s.LargestTimestamp() >= targetTimestamp {
			return s.FindOffsetByTimestamp(targetTimestamp)
		}
	}
	return TimestampOffset{}, false, nil
}

// GetOffsetsBefore answers ListOffsets v0 (Kafka's LogManager/KafkaApis.fetchOffsetsBefore): the
// base offsets of the segments last modified before timestamp, plus the log end offset when the
// active segment is non-empty, newest first, at most maxNumOffsets. LatestTimestamp and
// EarliestTimestamp select the log end and log start offsets.
func (l *Log) GetOffsetsBefore(timestamp int64, maxNumOffsets int) []int64 {
	segs := l.LogSegments()
	type off struct {
		offset int64
		ts     int64
	}
	arr := make([]off, 0, len(segs)+1)
	for _, s := range segs {
		arr = append(arr, off{s.BaseOffset(), s.LastModified()})
	}
	if last := segs[len(segs)-1]; last.Size() > 0 {
		arr = append(arr, off{l.LogEndOffset(), l.time.Milliseconds()})
	}
	startIndex := -1
	switch timestamp {
	case LatestTimestamp:
		startIndex = len(arr) - 1
	case EarliestTimestamp:
		startIndex = 0
	default:
		isFound := false
		startIndex = len(arr) - 1
		for startIndex >= 0 && !isFound {
			if arr[startIndex].ts <= timestamp {
				isFound = true
			} else {
				startIndex--
			}
		}
	}
	n := min(maxNumOffsets, startIndex+1)
	if n < 0 {
		n = 0
	}
	ret := make([]int64, n)
	for j := 0; j < n; j++ {
		ret[j] = arr[startIndex].offset
		startIndex--
	}
	return ret
}
