package log

import (
	"encoding/binary"
	"fmt"

	"github.com/zkafka/zkafka/clients/record"
)

// ValidationAndOffsetAssignResult is what LogValidator hands back to Log.append: the records to
// write (the input rewritten in place, or a new buffer), the max timestamp and the shallow offset
// carrying it (for the time index), and whether message sizes may have changed (conversion or
// re-compression), in which case Log re-checks max.message.bytes.
//
// Kafka 0.10.2: kafka.log.LogValidator.ValidationAndOffsetAssignResult
type ValidationAndOffsetAssignResult struct {
	ValidatedRecords            *record.MemoryRecords
	MaxTimestamp                int64
	ShallowOffsetOfMaxTimestamp int64
	MessageSizeMaybeChanged     bool
}

// LogValidator validates a leader's incoming message set and assigns its offsets. Offsets come from
// *offsetCounter (the log end offset), which is advanced past the assigned offsets.
//
// Three paths, as in Kafka:
//   - nothing compressed and every message already has the topic's magic: offsets (and for
//     LogAppendTime the timestamps) are rewritten in the caller's buffer;
//   - nothing compressed but some magic differs: every message is converted into a new buffer;
//   - something compressed (source or target): inner messages are checked one by one and either the
//     single wrapper is updated in place (same codec, magic 1, inner offsets exactly 0..n-1, no
//     conversion) or all inner messages are re-compressed into one new wrapper.
//
// Go differences: Kafka's object LogValidator re-scans the set to check the shallow magics; Log
// passes what its own shallow scan saw (knownShallowMagics, bit m set for magic m) so the leader
// append path walks the set once less. And when Log says its scan has already checked every entry
// of the set (shallowChecked), the in-place path hops from header to header over the bytes instead
// of building a LogEntry per message; the checks and writes per message, and their order, are the
// same. The zero value scans and iterates, as Kafka does.
//
// Kafka 0.10.2: kafka.log.LogValidator
type LogValidator struct {
	knownShallowMagics uint8
	shallowChecked     bool
}

// ValidateMessagesAndAssignOffsets is LogValidator.validateMessagesAndAssignOffsets.
func (v LogValidator) ValidateMessagesAndAssignOffsets(records *record.MemoryRecords, offsetCounter *int64, now int64,
	sourceCodec, targetCodec record.CompressionType, compactedTopic bool, messageFormatVersion int8,
	messageTimestampType record.TimestampType, messageTimestampDiffMaxMs int64) (ValidationAndOffsetAssignResult, error) {
	if sourceCodec == record.NONE && targetCodec == record.NONE {
		var matching bool
		if v.knownShallowMagics != 0 {
			matching = v.knownShallowMagics == 1<<messageFormatVersion
		} else {
			var err error
			if matching, err = hasMatchingShallowMagic(records, messageFormatVersion); err != nil {
				return ValidationAndOffsetAssignResult{}, err
			}
		}
		if !matching {
			return convertAndAssignOffsetsNonCompressed(records, offsetCounter, compactedTopic, now,
				messageTimestampType, messageTimestampDiffMaxMs, messageFormatVersion)
		}
		if v.shallowChecked {
			return assignOffsetsNonCompressedChecked(records, offsetCounter, now, compactedTopic,
				messageTimestampType, messageTimestampDiffMaxMs)
		}
		return assignOffsetsNonCompressed(records, offsetCounter, now, compactedTopic, messageTimestampType,
			messageTimestampDiffMaxMs)
	}
	return validateMessagesAndAssignOffsetsCompressed(records, offsetCounter, now, sourceCodec, targetCodec,
		compactedTopic, messageFormatVersion, messageTimestampType, messageTimestampDiffMaxMs)
}

func hasMatchingShallowMagic(records *record.MemoryRecords, magic int8) (bool, error) {
	for e, err := range records.ShallowEntries() {
		if err != nil {
			return false, err
		}
		if e.Magic() != magic {
			return false, nil
		}
	}
	return true, nil
}

func convertAndAssignOffsetsNonCompressed(records *record.MemoryRecords, offsetCounter *int64, compactedTopic bool,
	now int64, timestampType record.TimestampType, diffMaxMs int64, toMagic int8) (ValidationAndOffsetAssignResult, error) {
	builder := record.NewMemoryRecordsBuilder(toMagic, record.NONE, timestampType, *offsetCounter, now, 0)
	for e, err := range records.ShallowEntries() {
		if err != nil {
			return ValidationAndOffsetAssignResult{}, err
		}
		if err := validateKey(e.Record, compactedTopic); err != nil {
			return ValidationAndOffsetAssignResult{}, err
		}
		// Unlike the in-place path this checks magic-0 messages too (their -1 timestamp fails a
		// CreateTime range check unless the range is unbounded), as 0.10.2 does.
		if err := validateTimestamp(e.Record, now, timestampType, diffMaxMs); err != nil {
			return ValidationAndOffsetAssignResult{}, err
		}
		offset := *offsetCounter
		*offsetCounter++
		if err := builder.ConvertAndAppendWithOffset(offset, e.Record); err != nil {
			return ValidationAndOffsetAssignResult{}, fmt.Errorf("convert message at offset %d: %w", offset, err)
		}
	}
	converted := builder.Build()
	info := builder.Info()
	return ValidationAndOffsetAssignResult{ValidatedRecords: converted, MaxTimestamp: info.MaxTimestamp,
		ShallowOffsetOfMaxTimestamp: info.ShallowOffsetOfMaxTimestamp, MessageSizeMaybeChanged: true}, nil
}

func assignOffsetsNonCompressed(records *record.MemoryRecords, offsetCounter *int64, now int64, compactedTopic bool,
	timestampType record.TimestampType, diffMaxMs int64) (ValidationAndOffsetAssignResult, error) {
	maxTimestamp := record.NoTimestamp
	offsetOfMaxTimestamp := int64(-1)
	firstOffset := *offsetCounter
	for e, err := range records.ShallowEntries() {
		if err != nil {
			return ValidationAndOffsetAssignResult{}, err
		}
		if err := validateKey(e.Record, compactedTopic); err != nil {
			return ValidationAndOffsetAssignResult{}, err
		}
		offset := *offsetCounter
		*offsetCounter++
		e.SetOffset(offset) // writes into the caller's buffer
		if e.Magic() > record.MagicValueV0 {
			if err := validateTimestamp(e.Record, now, timestampType, diffMaxMs); err != nil {
				return ValidationAndOffsetAssignResult{}, err
			}
			if timestampType == record.LogAppendTime {
				if err := e.SetLogAppendTime(now); err != nil {
					return ValidationAndOffsetAssignResult{}, err
				}
			} else if ts := e.Record.Timestamp(); ts > maxTimestamp {
				maxTimestamp = ts
				offsetOfMaxTimestamp = offset
			}
		}
	}
	if timestampType == record.LogAppendTime {
		maxTimestamp = now
		offsetOfMaxTimestamp = firstOffset
	}
	return ValidationAndOffsetAssignResult{ValidatedRecords: records, MaxTimestamp: maxTimestamp,
		ShallowOffsetOfMaxTimestamp: offsetOfMaxTimestamp, MessageSizeMaybeChanged: false}, nil
}

// assignOffsetsNonCompressedChecked is assignOffsetsNonCompressed for a set made only of whole
// entries that have passed the shallow checks (sizes, structure, CRC), so the entry boundaries can
// be read straight from the size fields and the fields straight from the bytes. Per message it does
// what the iterator version does, in the same order: key check, offset written into the header,
// then for magic >= 1 the timestamp check and either the log append time (with a new CRC) or the
// max-timestamp bookkeeping. The checks are done inline on the raw fields; only a message that
// fails one goes through validateKey / validateTimestamp, which build the error. An error leaves
// the buffer exactly as the iterator version would.
func assignOffsetsNonCompressedChecked(records *record.MemoryRecords, offsetCounter *int64, now int64,
	compactedTopic bool, timestampType record.TimestampType, diffMaxMs int64) (ValidationAndOffsetAssignResult, error) {
	const (
		magicAt = record.LogOverhead + record.MagicOffset      // from the start of the entry
		attrsAt = record.LogOverhead + record.AttributesOffset // v1 timestamp follows the attributes
		tsAt    = record.LogOverhead + record.TimestampOffset
		keyV0At = record.LogOverhead + record.KeySizeOffsetV0
		keyV1At = record.LogOverhead + record.KeySizeOffsetV1
	)
	buf := records.Bytes()
	maxTimestamp := record.NoTimestamp
	offsetOfMaxTimestamp := int64(-1)
	firstOffset := *offsetCounter
	checkCreateTime := timestampType == record.CreateTime
	for pos := 0; len(buf)-pos >= record.LogOverhead; {
		size := int(int32(binary.BigEndian.Uint32(buf[pos+record.SizeOffset:])))
		if size > len(buf)-pos-record.LogOverhead {
			break // a trailing partial entry ends the set, as it ends ShallowEntries
		}
		if size < record.RecordOverheadV0 {
			return ValidationAndOffsetAssignResult{}, errUncheckedEntry(pos)
		}
		end := pos + record.LogOverhead + size
		entry := buf[pos:end:end]
		magic := int8(entry[magicAt])
		if magic > record.MagicValueV0 && size < record.RecordOverheadV1 {
			return ValidationAndOffsetAssignResult{}, errUncheckedEntry(pos)
		}
		if compactedTopic {
			keyAt := keyV1At
			if magic == record.MagicValueV0 {
				keyAt = keyV0At
			}
			if int32(binary.BigEndian.Uint32(entry[keyAt:])) < 0 {
				if err := validateKey(record.NewRecordFromBytes(entry[record.LogOverhead:]), true); err != nil {
					return ValidationAndOffsetAssignResult{}, err
				}
			}
		}
		offset := *offsetCounter
		*offsetCounter++
		binary.BigEndian.PutUint64(entry[record.OffsetOffset:], uint64(offset))
		if magic > record.MagicValueV0 {
			ts := int64(binary.BigEndian.Uint64(entry[tsAt:]))
			d := ts - now
			if d < 0 {
				d = -d
			}
			if (checkCreateTime && d > diffMaxMs) || entry[attrsAt]&byte(record.TimestampTypeMask) != 0 {
				r := record.NewRecordFromBytes(entry[record.LogOverhead:])
				if err := validateTimestamp(r, now, timestampType, diffMaxMs); err != nil {
					return ValidationAndOffsetAssignResult{}, err
				}
			}
			if timestampType == record.LogAppendTime {
				e := record.NewLogEntry(offset, record.NewRecordFromBytes(entry[record.LogOverhead:]))
				if err := e.SetLogAppendTime(now); err != nil {
					return ValidationAndOffsetAssignResult{}, err
				}
			} else if ts > maxTimestamp {
				maxTimestamp = ts
				offsetOfMaxTimestamp = offset
			}
		}
		pos = end
	}
	if timestampType == record.LogAppendTime {
		maxTimestamp = now
		offsetOfMaxTimestamp = firstOffset
	}
	return ValidationAndOffsetAssignResult{ValidatedRecords: records, MaxTimestamp: maxTimestamp,
		ShallowOffsetOfMaxTimestamp: offsetOfMaxTimestamp, MessageSizeMaybeChanged: false}, nil
}

// errUncheckedEntry reports an entry that the shallow checks would have refused: the caller of
// assignOffsetsNonCompressedChecked broke its promise. The bytes are refused, never guessed at.
func errUncheckedEntry(pos int) error {
	return fmt.Errorf("entry at position %d was not checked before offset assignment: %w", pos, ErrCorruptRecord)
}

func validateMessagesAndAssignOffsetsCompressed(records *record.MemoryRecords, offsetCounter *int64, now int64,
	sourceCodec, targetCodec record.CompressionType, compactedTopic bool, magic int8,
	timestampType record.TimestampType, diffMaxMs int64) (ValidationAndOffsetAssignResult, error) {
	inPlace := sourceCodec == targetCodec && magic > record.MagicValueV0
	maxTimestamp := record.NoTimestamp
	expectedInnerOffset := int64(0)
	var validated []record.Record
	for e, err := range records.DeepEntriesEnsureMatchingMagic() {
		if err != nil {
			return ValidationAndOffsetAssignResult{}, err
		}
		r := e.Record
		// The inner CRC is checked too (the 0.10.2 branch's KAFKA-8722 fix).
		if err := r.EnsureValid(); err != nil {
			return ValidationAndOffsetAssignResult{}, err
		}
		if err := validateKey(r, compactedTopic); err != nil {
			return ValidationAndOffsetAssignResult{}, err
		}
		if r.Magic() > record.MagicValueV0 && magic > record.MagicValueV0 {
			if err := validateTimestamp(r, now, timestampType, diffMaxMs); err != nil {
				return ValidationAndOffsetAssignResult{}, err
			}
			if e.Offset != expectedInnerOffset {
				inPlace = false
			}
			expectedInnerOffset++
			if ts := r.Timestamp(); ts > maxTimestamp {
				maxTimestamp = ts
			}
		}
		if sourceCodec != record.NONE && e.IsCompressed() {
			return ValidationAndOffsetAssignResult{}, fmt.Errorf("compressed outer message holds a compressed inner message %v: %w", r, ErrInvalidMessage)
		}
		if r.Magic() != magic {
			inPlace = false
		}
		converted, err := r.Convert(magic)
		if err != nil {
			return ValidationAndOffsetAssignResult{}, err
		}
		validated = append(validated, converted)
	}

	if !inPlace {
		firstOffset := *offsetCounter
		builderMagic := magic
		if len(validated) > 0 {
			builderMagic = validated[0].Magic()
		}
		builder := record.NewMemoryRecordsBuilder(builderMagic, targetCodec, timestampType, firstOffset, now, 0)
		for _, r := range validated {
			offset := *offsetCounter
			*offsetCounter++
			if err := builder.AppendRecordWithOffset(offset, r); err != nil {
				return ValidationAndOffsetAssignResult{}, fmt.Errorf("re-compress message at offset %d: %w", offset, err)
			}
		}
		built := builder.Build()
		info := builder.Info()
		return ValidationAndOffsetAssignResult{ValidatedRecords: built, MaxTimestamp: info.MaxTimestamp,
			ShallowOffsetOfMaxTimestamp: info.ShallowOffsetOfMaxTimestamp, MessageSizeMaybeChanged: true}, nil
	}

	// In place: only the first shallow entry (the single wrapper) is rewritten.
	*offsetCounter += int64(len(validated))
	offset := *offsetCounter - 1
	for e, err := range records.ShallowEntries() {
		if err != nil {
			return ValidationAndOffsetAssignResult{}, err
		}
		e.SetOffset(offset)
		shallowTimestamp := maxTimestamp
		if timestampType == record.LogAppendTime {
			shallowTimestamp = now
			err = e.SetLogAppendTime(shallowTimestamp)
		} else {
			err = e.SetCreateTime(shallowTimestamp)
		}
		if err != nil {
			return ValidationAndOffsetAssignResult{}, err
		}
		return ValidationAndOffsetAssignResult{ValidatedRecords: records, MaxTimestamp: shallowTimestamp,
			ShallowOffsetOfMaxTimestamp: offset, MessageSizeMaybeChanged: false}, nil
	}
	return ValidationAndOffsetAssignResult{}, fmt.Errorf("no shallow entry to assign offsets to: %w", ErrCorruptRecord)
}

func validateKey(r record.Record, compactedTopic bool) error {
	if compactedTopic && !r.HasKey() {
		return fmt.Errorf("compacted topic cannot accept message without key: %w", ErrInvalidMessage)
	}
	return nil
}

func validateTimestamp(r record.Record, now int64, timestampType record.TimestampType, diffMaxMs int64) error {
	if timestampType == record.CreateTime {
		d := r.Timestamp() - now
		if d < 0 {
			d = -d
		}
		if d > diffMaxMs {
			return fmt.Errorf("timestamp %d of message is out of range; it should be within [%d, %d]: %w",
				r.Timestamp(), now-diffMaxMs, now+diffMaxMs, ErrInvalidTimestamp)
		}
	}
	if r.TimestampType() == record.LogAppendTime {
		return fmt.Errorf("invalid timestamp type in message %v: producers must not set LogAppendTime: %w", r, ErrInvalidTimestamp)
	}
	return nil
}
