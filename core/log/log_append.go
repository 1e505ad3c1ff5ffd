package log

import (
	"fmt"

	"github.com/zkafka/zkafka/clients/record"
)

// Append adds a message set to the log. With assignOffsets (the leader) LogValidator checks the
// messages and gives them offsets from the log end offset, converting or re-compressing them when
// the topic's message format or compression.type require it. Without it (a follower) the offsets in
// the set are kept and must be increasing and not below the log end offset. A set whose first entry
// is incomplete is a no-op (FirstOffset -1); trailing partial bytes are dropped.
func (l *Log) Append(records *record.MemoryRecords, assignOffsets bool) (LogAppendInfo, error) {
	c := l.Config()
	info, err := l.analyzeAndValidateRecords(records, c)
	if err != nil {
		return info, err
	}
	if info.ShallowCount == 0 {
		return info, nil
	}
	valid := records
	if info.ValidBytes < records.SizeInBytes() {
		valid = record.NewMemoryRecords(records.Bytes()[:info.ValidBytes])
	}

	l.lock()
	defer l.unlock()
	if assignOffsets {
		offset := l.LogEndOffset()
		info.FirstOffset = offset
		now := l.time.Milliseconds()
		// valid holds only whole entries that analyzeAndValidateRecords has checked.
		v := LogValidator{knownShallowMagics: info.shallowMagics, shallowChecked: true}
		res, err := v.ValidateMessagesAndAssignOffsets(valid, &offset, now, info.SourceCodec, info.TargetCodec,
			c.Compact, c.MessageFormatMagic, c.MessageTimestampType, c.MessageTimestampDifferenceMaxMs)
		if err != nil {
			return info, err
		}
		valid = res.ValidatedRecords
		info.MaxTimestamp = res.MaxTimestamp
		info.OffsetOfMaxTimestamp = res.ShallowOffsetOfMaxTimestamp
		info.LastOffset = offset - 1
		if c.MessageTimestampType == record.LogAppendTime {
			info.LogAppendTime = now
		}
		if res.MessageSizeMaybeChanged {
			for e, err := range valid.ShallowEntries() {
				if err != nil {
					return info, err
				}
				if e.Size() > c.MaxMessageSize {
					return info, fmt.Errorf("message size is %d bytes which exceeds the maximum configured message size of %d: %w",
						e.Size(), c.MaxMessageSize, ErrRecordTooLarge)
				}
			}
		}
	} else if !info.OffsetsMonotonic || info.FirstOffset < l.LogEndOffset() {
		return info, fmt.Errorf("out of order offsets found in the appended set (first %d, last %d, log end offset %d): %w",
			info.FirstOffset, info.LastOffset, l.LogEndOffset(), ErrIllegalArgument)
	}

	if valid.SizeInBytes() > c.SegmentSize {
		return info, fmt.Errorf("message set size is %d bytes which exceeds the maximum configured segment size of %d: %w",
			valid.SizeInBytes(), c.SegmentSize, ErrRecordBatchTooLarge)
	}
	seg, err := l.maybeRollLocked(valid.SizeInBytes(), info.MaxTimestamp, info.LastOffset)
	if err != nil {
		return info, err
	}
	if err := seg.Append(info.FirstOffset, info.LastOffset, info.MaxTimestamp, info.OffsetOfMaxTimestamp, valid); err != nil {
		return info, err
	}
	l.updateLogEndOffset(info.LastOffset + 1)
	if l.UnflushedMessages() >= c.FlushInterval {
		if err := l.Flush(); err != nil {
			return info, err
		}
	}
	return info, nil
}

// analyzeAndValidateRecords is the shallow pass before the lock: sizes, CRCs, offsets monotonic,
// the producer's codec, and the number of valid bytes.
//
// Go difference: the pass first runs as MemoryRecords.ScanShallow, a single loop over the bytes
// that builds nothing per message. Only when that loop meets a bad entry does the iterator walk
// below run, to return exactly the error Kafka's walk would.
func (l *Log) analyzeAndValidateRecords(records *record.MemoryRecords, c *LogConfig) (LogAppendInfo, error) {
	if s, ok := records.ScanShallow(c.MaxMessageSize); ok {
		return LogAppendInfo{FirstOffset: s.FirstOffset, LastOffset: s.LastOffset, MaxTimestamp: s.MaxTimestamp,
			OffsetOfMaxTimestamp: s.OffsetOfMaxTimestamp, LogAppendTime: record.NoTimestamp, SourceCodec: s.Codec,
			TargetCodec: targetCompressionCodec(c.CompressionType, s.Codec), ShallowCount: s.Count,
			ValidBytes: s.ValidBytes, OffsetsMonotonic: s.OffsetsMonotonic, shallowMagics: s.Magics}, nil
	}
	return analyzeAndValidateRecordsSlow(records, c)
}

// analyzeAndValidateRecordsSlow is the same pass over the iterator, which reports the first bad
// entry with its position.
func analyzeAndValidateRecordsSlow(records *record.MemoryRecords, c *LogConfig) (LogAppendInfo, error) {
	shallowCount := 0
	validBytes := 0
	firstOffset, lastOffset := int64(-1), int64(-1)
	sourceCodec := record.NONE
	monotonic := true
	maxTimestamp := record.NoTimestamp
	offsetOfMaxTimestamp := int64(-1)
	var magics uint8
	for e, err := range records.ShallowEntries() {
		if err != nil {
			return UnknownLogAppendInfo, err
		}
		if firstOffset < 0 {
			firstOffset = e.Offset
		}
		if lastOffset >= e.Offset {
			monotonic = false
		}
		lastOffset = e.Offset
		size := e.Size()
		if size > c.MaxMessageSize {
			return UnknownLogAppendInfo, fmt.Errorf("message size is %d bytes which exceeds the maximum configured message size of %d: %w",
				size, c.MaxMessageSize, ErrRecordTooLarge)
		}
		if err := e.Record.EnsureValid(); err != nil {
			return UnknownLogAppendInfo, err
		}
		if ts := e.Record.Timestamp(); ts > maxTimestamp {
			maxTimestamp, offsetOfMaxTimestamp = ts, lastOffset
		}
		if m := e.Magic(); m >= 0 && m < 8 {
			magics |= 1 << m
		} else {
			magics |= 0x80
		}
		shallowCount++
		validBytes += size
		if codec := e.Record.CompressionType(); codec != record.NONE {
			sourceCodec = codec
		}
	}
	return LogAppendInfo{FirstOffset: firstOffset, LastOffset: lastOffset, MaxTimestamp: maxTimestamp,
		OffsetOfMaxTimestamp: offsetOfMaxTimestamp, LogAppendTime: record.NoTimestamp, SourceCodec: sourceCodec,
		TargetCodec: targetCompressionCodec(c.CompressionType, sourceCodec), ShallowCount: shallowCount,
		ValidBytes: validBytes, OffsetsMonotonic: monotonic, shallowMagics: magics}, nil
}

// maybeRollLocked rolls when the active segment is full by size, old by segment.ms (minus its
// jitter), has a full index, or cannot store maxOffsetInMessages relative to its base.
func (l *Log) maybeRollLocked(messagesSize int, maxTimestampInMessages, maxOffsetInMessages int64) (*LogSegment, error) {
	seg := l.ActiveSegment()
	c := l.Config()
	now := l.time.Milliseconds()
	reachedRollMs := seg.TimeWaitedForRoll(now, maxTimestampInMessages) > c.SegmentMs-seg.RollJitterMs()
	if seg.Size() > int64(c.SegmentSize-messagesSize) ||
		(seg.Size() > 0 && reachedRollMs) ||
		seg.Index().IsFull() || seg.TimeIndex().IsFull() || !seg.CanConvertToRelativeOffset(maxOffsetInMessages) {
		l.logger.Debugf("Rolling new log segment in %s (log_size = %d/%d, index_size = %d/%d, time_index_size = %d/%d, inactive_time_ms = %d/%d).",
			l.Name(), seg.Size(), c.SegmentSize, seg.Index().Entries(), seg.Index().MaxEntries(),
			seg.TimeIndex().Entries(), seg.TimeIndex().MaxEntries(), seg.TimeWaitedForRoll(now, maxTimestampInMessages),
			c.SegmentMs-seg.RollJitterMs())
		// maxOffset - MaxInt32 is a lower bound for the set's first offset that needs no
		// decompression; it only matters when offsets jump (a follower copying a compacted log).
		return l.rollLocked(maxOffsetInMessages - 2147483647)
	}
	return seg, nil
}
