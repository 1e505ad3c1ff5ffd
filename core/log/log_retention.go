package log

// DeleteOldSegmentsWith deletes the oldest segments while predicate holds for them (never the
// active segment when it is empty). If every segment goes, a new empty active segment is rolled
// first so the log keeps its end offset. It returns how many segments were deleted. LogManager and
// the cleaner pass their own predicates.
func (l *Log) DeleteOldSegmentsWith(predicate func(*LogSegment) bool) (int, error) {
	l.lock()
	defer l.unlock()
	deletable := l.deletableSegments(predicate)
	if len(deletable) == 0 {
		return 0, nil
	}
	if len(deletable) == l.NumberOfSegments() {
		if _, err := l.rollLocked(0); err != nil {
			return 0, err
		}
	}
	for _, s := range deletable {
		if err := l.deleteSegmentLocked(s); err != nil {
			return 0, err
		}
	}
	if c := l.LeaderEpochCache(); c != nil {
		if err := c.ClearAndFlushEarliest(l.LogStartOffset()); err != nil {
			return 0, err
		}
	}
	return len(deletable), nil
}

func (l *Log) deletableSegments(predicate func(*LogSegment) bool) []*LogSegment {
	segs := l.LogSegments()
	if len(segs) == 0 {
		return nil
	}
	last := segs[len(segs)-1]
	var out []*LogSegment
	for _, s := range segs {
		if !predicate(s) || (s == last && s.Size() == 0) {
			break
		}
		out = append(out, s)
	}
	return out
}

// DeleteOldSegments applies the delete policy: first retention.ms (by each segment's largest
// timestamp), then retention.bytes. Logs without "delete" in cleanup.policy are left alone.
func (l *Log) DeleteOldSegments() (int, error) {
	if !l.Config().Delete {
		return 0, nil
	}
	n, err := l.deleteRetentionMsBreachedSegments()
	if err != nil {
		return n, err
	}
	m, err := l.deleteRetentionSizeBreachedSegments()
	return n + m, err
}

func (l *Log) deleteRetentionMsBreachedSegments() (int, error) {
	c := l.Config()
	if c.RetentionMs < 0 {
		return 0, nil
	}
	startMs := l.time.Milliseconds()
	return l.DeleteOldSegmentsWith(func(s *LogSegment) bool { return startMs-s.LargestTimestamp() > c.RetentionMs })
}

func (l *Log) deleteRetentionSizeBreachedSegments() (int, error) {
	c := l.Config()
	size := l.Size()
	if c.RetentionSize < 0 || size < c.RetentionSize {
		return 0, nil
	}
	diff := size - c.RetentionSize
	return l.DeleteOldSegmentsWith(func(s *LogSegment) bool {
		if diff-s.Size() >= 0 {
			diff -= s.Size()
			return true
		}
		return false
	})
}
