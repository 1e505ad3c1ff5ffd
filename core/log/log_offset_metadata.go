package log

import "fmt"

// Sentinels for a LogOffsetMetadata that carries only a message offset.
const (
	UnknownSegBaseOffset int64 = -1
	UnknownFilePosition  int32 = -1
)

// UnknownOffsetMetadata is what convertToOffsetMetadata returns for an offset outside the log.
var UnknownOffsetMetadata = LogOffsetMetadata{MessageOffset: -1, SegmentBaseOffset: 0, RelativePositionInSegment: 0}

// LogOffsetMetadata locates an offset physically: the message offset, the base offset of the segment
// holding it and its byte position in that segment. The replica manager compares these to decide
// whether a delayed fetch has accumulated enough bytes without re-reading the log.
//
// Kafka 0.10.2: kafka.server.LogOffsetMetadata (moved to core/log, docs/design.md §1.2 row 5).
type LogOffsetMetadata struct {
	MessageOffset             int64
	SegmentBaseOffset         int64
	RelativePositionInSegment int32
}

// NewMessageOffsetOnly returns metadata that knows only the message offset.
func NewMessageOffsetOnly(offset int64) LogOffsetMetadata {
	return LogOffsetMetadata{MessageOffset: offset, SegmentBaseOffset: UnknownSegBaseOffset,
		RelativePositionInSegment: UnknownFilePosition}
}

// MessageOffsetOnly reports whether the segment information is unknown.
func (m LogOffsetMetadata) MessageOffsetOnly() bool {
	return m.SegmentBaseOffset == UnknownSegBaseOffset && m.RelativePositionInSegment == UnknownFilePosition
}

// OnOlderSegment reports whether m lies in an earlier segment than that.
func (m LogOffsetMetadata) OnOlderSegment(that LogOffsetMetadata) (bool, error) {
	if m.MessageOffsetOnly() {
		return false, fmt.Errorf("%v cannot compare its segment info with %v since it only has message offset info: %w", m, that, ErrIllegalState)
	}
	return m.SegmentBaseOffset < that.SegmentBaseOffset, nil
}

// OnSameSegment reports whether m and that lie in the same segment.
func (m LogOffsetMetadata) OnSameSegment(that LogOffsetMetadata) (bool, error) {
	if m.MessageOffsetOnly() {
		return false, fmt.Errorf("%v cannot compare its segment info with %v since it only has message offset info: %w", m, that, ErrIllegalState)
	}
	return m.SegmentBaseOffset == that.SegmentBaseOffset, nil
}

// OffsetDiff is m.MessageOffset - that.MessageOffset.
func (m LogOffsetMetadata) OffsetDiff(that LogOffsetMetadata) int64 {
	return m.MessageOffset - that.MessageOffset
}

// PositionDiff is the byte distance between two offsets of the same segment.
func (m LogOffsetMetadata) PositionDiff(that LogOffsetMetadata) (int32, error) {
	same, err := m.OnSameSegment(that)
	if err != nil {
		return 0, err
	}
	if !same {
		return 0, fmt.Errorf("%v cannot compare its segment position with %v since they are not on the same segment: %w", m, that, ErrIllegalState)
	}
	return m.RelativePositionInSegment - that.RelativePositionInSegment, nil
}

// String prints "offset [segmentBase : position]" as Kafka's toString does.
func (m LogOffsetMetadata) String() string {
	return fmt.Sprintf("%d [%d : %d]", m.MessageOffset, m.SegmentBaseOffset, m.RelativePositionInSegment)
}
