package log

import "github.com/zkafka/zkafka/clients/record"

// filterResult reports what one filterTo pass read and kept.
//
// Kafka 0.10.2: MemoryRecords.FilterResult.
type filterResult struct {
	output                      []byte
	messagesRead                int
	bytesRead                   int
	messagesRetained            int
	bytesRetained               int
	maxOffset                   int64
	maxTimestamp                int64
	shallowOffsetOfMaxTimestamp int64
}

// filterTo copies the messages of the whole shallow entries in src that shouldRetain keeps
// to dst and returns the result (dst grown as needed). A shallow entry whose inner messages
// are all kept, with the wrapper's magic, is copied byte for byte; otherwise the kept
// messages are written into a new entry of the same codec and timestamp type, offsets
// unchanged (so a compressed v1 entry gets relative offsets with gaps). A trailing partial
// entry is left unread (bytesRead stops before it), which is how the caller knows to read on
// or grow its buffer.
//
// Kafka 0.10.2: MemoryRecords.filterTo. It lives in core/log because only the cleaner uses it;
// the KAFKA-4298 repair (a v1 wrapper holding v0 messages is rewritten as v0) is kept. Go
// difference: the output slice grows instead of the fixed ByteBuffer of Kafka, so the early
// return of KAFKA-5316 is not needed.
func filterTo(src []byte, shouldRetain func(record.LogEntry) bool, dst []byte) (filterResult, error) {
	res := filterResult{output: dst, maxOffset: -1, maxTimestamp: record.NoTimestamp, shallowOffsetOfMaxTimestamp: -1}
	for shallow, err := range record.NewMemoryRecords(src).ShallowEntries() {
		if err != nil {
			return res, err
		}
		shallowRecord := shallow.Record
		shallowMagic := shallowRecord.Magic()
		writeOriginal := true
		var retained []record.LogEntry
		for deep, err := range shallow.DeepEntries() {
			if err != nil {
				return res, err
			}
			res.messagesRead++
			if shouldRetain(deep) {
				if deep.Record.Magic() != shallowMagic {
					writeOriginal = false
				}
				res.maxOffset = max(res.maxOffset, deep.Offset)
				retained = append(retained, deep)
			} else {
				writeOriginal = false
			}
		}
		res.bytesRead += shallow.Size()
		switch {
		case writeOriginal:
			res.output = shallow.AppendTo(res.output)
			res.messagesRetained += len(retained)
			res.bytesRetained += shallow.Size()
			if ts := shallowRecord.Timestamp(); ts > res.maxTimestamp {
				res.maxTimestamp = ts
				res.shallowOffsetOfMaxTimestamp = shallow.Offset
			}
		case len(retained) > 0:
			first := retained[0]
			tsType := shallowRecord.TimestampType()
			if tsType == record.NoTimestampType {
				tsType = record.CreateTime
			}
			b := record.NewMemoryRecordsBuilder(first.Record.Magic(), shallowRecord.CompressionType(), tsType,
				first.Offset, shallowRecord.Timestamp(), 0)
			for _, e := range retained {
				if err := b.AppendRecordWithOffset(e.Offset, e.Record); err != nil {
					return res, err
				}
			}
			built := b.Build().Bytes()
			res.output = append(res.output, built...)
			res.messagesRetained += len(retained)
			res.bytesRetained += len(built)
			if info := b.Info(); info.MaxTimestamp > res.maxTimestamp {
				res.maxTimestamp = info.MaxTimestamp
				res.shallowOffsetOfMaxTimestamp = info.ShallowOffsetOfMaxTimestamp
			}
		}
	}
	return res, nil
}
