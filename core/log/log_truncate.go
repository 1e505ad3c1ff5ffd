package log

import "fmt"

// TruncateTo removes every message at or after targetOffset (a follower becoming consistent with its
// leader). Truncating at or beyond the log end does nothing; when even the first segment starts
// after targetOffset the log is emptied and restarted there (TruncateFullyAndStartAt).
func (l *Log) TruncateTo(targetOffset int64) error {
	l.logger.Infof("Truncating log %s to offset %d.", l.Name(), targetOffset)
	if targetOffset < 0 {
		return fmt.Errorf("cannot truncate to a negative offset (%d): %w", targetOffset, ErrIllegalArgument)
	}
	if targetOffset > l.LogEndOffset() {
		l.logger.Infof("Truncating %s to %d has no effect as the largest offset in the log is %d.", l.Name(), targetOffset, l.LogEndOffset()-1)
		return nil
	}
	l.lock()
	defer l.unlock()
	if l.LogSegments()[0].BaseOffset() > targetOffset {
		return l.truncateFullyAndStartAtLocked(targetOffset)
	}
	if c := l.LeaderEpochCache(); c != nil && targetOffset < l.LogEndOffset() {
		if err := c.ClearAndFlushLatest(targetOffset); err != nil {
			return err
		}
	}
	for _, s := range l.LogSegments() {
		if s.BaseOffset() > targetOffset {
			if err := l.deleteSegmentLocked(s); err != nil {
				return err
			}
		}
	}
	if _, err := l.ActiveSegment().TruncateTo(targetOffset); err != nil {
		return err
	}
	l.updateLogEndOffset(targetOffset)
	l.lowerRecoveryPoint(targetOffset)
	return nil
}

// TruncateFullyAndStartAt deletes every segment and starts an empty log at newOffset (a follower
// whose fetch offset fell below the leader's log start).
func (l *Log) TruncateFullyAndStartAt(newOffset int64) error {
	l.lock()
	defer l.unlock()
	return l.truncateFullyAndStartAtLocked(newOffset)
}

func (l *Log) truncateFullyAndStartAtLocked(newOffset int64) error {
	l.logger.Debugf("Truncate and start log '%s' to %d", l.Name(), newOffset)
	if c := l.LeaderEpochCache(); c != nil {
		if err := c.ClearAndFlush(); err != nil {
			return err
		}
	}
	// Rename the old files away first (the new segment may reuse a base offset), then publish the
	// one-segment list in one store so lock-free readers never see an empty log.
	for _, s := range l.LogSegments() {
		l.logger.Infof("Scheduling log segment %d for log %s for deletion.", s.BaseOffset(), l.Name())
		if err := l.asyncDeleteSegment(s); err != nil {
			return err
		}
	}
	seg, err := l.newSegment(newOffset, false)
	if err != nil {
		return err
	}
	segs := []*LogSegment{seg}
	l.segments.Store(&segs)
	l.updateLogEndOffset(newOffset)
	l.lowerRecoveryPoint(newOffset)
	return nil
}

func (l *Log) lowerRecoveryPoint(offset int64) {
	for {
		cur := l.recoveryPoint.Load()
		if offset >= cur || l.recoveryPoint.CompareAndSwap(cur, offset) {
			return
		}
	}
}
