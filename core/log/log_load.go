package log

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
)

// loadSegments reads the directory; see NewLog.
func (l *Log) loadSegments() error {
	dir := l.Dir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create log dir %s: %w: %w", dir, ErrKafkaStorage, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("list %s: %w: %w", dir, ErrKafkaStorage, err)
	}
	// Pass 1: drop leftovers of deletions and cleanings, note interrupted swaps.
	var swapFiles []string
	changed := false
	for _, de := range entries {
		if !de.Type().IsRegular() {
			continue
		}
		name := de.Name()
		path := filepath.Join(dir, name)
		switch {
		case strings.HasSuffix(name, DeletedFileSuffix) || strings.HasSuffix(name, CleanedFileSuffix):
			_ = os.Remove(path)
			changed = true
		case strings.HasSuffix(name, SwapFileSuffix):
			changed = true
			base := strings.TrimSuffix(path, SwapFileSuffix)
			switch {
			case strings.HasSuffix(base, IndexFileSuffix):
				_ = os.Remove(path)
			case strings.HasSuffix(base, LogFileSuffix):
				// The swap's offset index is rebuilt from the swapped .log; the stale one goes.
				_ = os.Remove(strings.TrimSuffix(base, LogFileSuffix) + IndexFileSuffix)
				swapFiles = append(swapFiles, path)
			}
		}
	}
	// Pass 2: orphan indexes go; every .log becomes a segment. The directory is listed
	// again only if pass 1 removed something: a start after a clean shutdown lists it once.
	if changed {
		if entries, err = os.ReadDir(dir); err != nil {
			return fmt.Errorf("list %s: %w: %w", dir, ErrKafkaStorage, err)
		}
	}
	files := make(map[string]bool, len(entries))
	for _, de := range entries {
		if de.Type().IsRegular() {
			files[de.Name()] = true
		}
	}
	var segs []*LogSegment
	for _, de := range entries {
		if !de.Type().IsRegular() {
			continue
		}
		name := de.Name()
		path := filepath.Join(dir, name)
		switch {
		case strings.HasSuffix(name, IndexFileSuffix) || strings.HasSuffix(name, TimeIndexFileSuffix):
			var logFile string
			if strings.HasSuffix(name, TimeIndexFileSuffix) {
				logFile = strings.TrimSuffix(path, TimeIndexFileSuffix) + LogFileSuffix
			} else {
				logFile = strings.TrimSuffix(path, IndexFileSuffix) + LogFileSuffix
			}
			if !files[filepath.Base(logFile)] {
				l.logger.Warnf("Found an orphaned index file, %s, with no corresponding log file.", path)
				_ = os.Remove(path)
			}
		case strings.HasSuffix(name, LogFileSuffix):
			start, err := strconv.ParseInt(strings.TrimSuffix(name, LogFileSuffix), 10, 64)
			if err != nil {
				return fmt.Errorf("log file %s does not start with an offset: %w", path, ErrKafkaStorage)
			}
			seg, err := l.loadSegment(dir, start, files)
			if err != nil {
				for _, s := range segs {
					_ = s.Close()
				}
				return err
			}
			segs = append(segs, seg)
		}
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].BaseOffset() < segs[j].BaseOffset() })
	l.segments.Store(&segs)

	// Pass 3: finish interrupted swaps.
	for _, swap := range swapFiles {
		if err := l.completeSwap(swap); err != nil {
			return err
		}
	}

	if len(l.LogSegments()) == 0 {
		seg, err := l.newSegment(0, false)
		if err != nil {
			return err
		}
		l.addSegment(seg)
		return nil
	}
	if !strings.HasSuffix(dir, DeleteDirSuffix) {
		if err := l.checkIndexes(); err != nil { // load_checks.go
			return err
		}
		if err := l.recoverLog(); err != nil {
			return err
		}
		active := l.ActiveSegment()
		c := l.Config()
		if err := active.Index().Resize(c.MaxIndexSize); err != nil {
			return err
		}
		if err := active.TimeIndex().Resize(c.MaxIndexSize); err != nil {
			return err
		}
	}
	return nil
}

// loadSegment opens an existing segment and checks (or rebuilds) its indexes; files
// names the regular files of the directory.
func (l *Log) loadSegment(dir string, start int64, files map[string]bool) (*LogSegment, error) {
	c := l.Config()
	indexFile, timeIndexFile := IndexFilename(dir, start), TimeIndexFilename(dir, start)
	indexExists := files[filepath.Base(indexFile)]
	timeIndexExists := files[filepath.Base(timeIndexFile)]
	seg, err := l.newSegment(start, true)
	if err != nil {
		return nil, err
	}
	if !indexExists {
		l.logger.Errorf("Could not find index file corresponding to log file %s, rebuilding index...", seg.Log().File())
		if _, err := seg.Recover(c.MaxMessageSize); err != nil {
			_ = seg.Close()
			return nil, err
		}
		return seg, nil
	}
	err = seg.Index().SanityCheck()
	if err == nil && !timeIndexExists {
		// 0.10.0 data has no time index: start with an empty one.
		err = seg.TimeIndex().Resize(0)
	}
	if err == nil {
		err = seg.TimeIndex().SanityCheck()
	}
	if err != nil {
		if !errors.Is(err, ErrCorruptIndex) {
			_ = seg.Close()
			return nil, err
		}
		l.logger.Warnf("Found a corrupted index file due to %v. deleting %s, %s and rebuilding index...", err, timeIndexFile, indexFile)
		// Both indexes are reset in place: Recover truncates and refills them.
		if _, err := seg.Recover(c.MaxMessageSize); err != nil {
			_ = seg.Close()
			return nil, err
		}
	}
	return seg, nil
}

// completeSwap recovers an X.log.swap left by an interrupted cleaning and puts it in place of the
// segments it covers.
func (l *Log) completeSwap(swapPath string) error {
	c := l.Config()
	logFile := strings.TrimSuffix(swapPath, SwapFileSuffix)
	start, err := strconv.ParseInt(strings.TrimSuffix(filepath.Base(logFile), LogFileSuffix), 10, 64)
	if err != nil {
		return fmt.Errorf("swap file %s does not start with an offset: %w", swapPath, ErrKafkaStorage)
	}
	seg, err := OpenSwapSegment(swapPath, start, c, l.time, l.logger)
	if err != nil {
		return err
	}
	l.logger.Infof("Found log file %s from interrupted swap operation, repairing.", swapPath)
	if _, err := seg.Recover(c.MaxMessageSize); err != nil {
		_ = seg.Close()
		return err
	}
	next, err := seg.NextOffset()
	if err != nil {
		_ = seg.Close()
		return err
	}
	return l.ReplaceSegments(seg, l.LogSegmentsRange(seg.BaseOffset(), next), true)
}

// OpenSwapSegment opens X.log.swap with X.index.swap and X.timeindex.swap (created if absent).
func OpenSwapSegment(swapLogPath string, start int64, c *LogConfig, time common.Time, logger *logrus.Entry) (*LogSegment, error) {
	base := strings.TrimSuffix(strings.TrimSuffix(swapLogPath, SwapFileSuffix), LogFileSuffix)
	return openSegmentFiles(swapLogPath, base+IndexFileSuffix+SwapFileSuffix, base+TimeIndexFileSuffix+SwapFileSuffix,
		start, c, time, logger)
}

// recoverLog implements Kafka's recoverLog; see NewLog.
func (l *Log) recoverLog() error {
	c := l.Config()
	if l.hasCleanShutdownFile() {
		// After a clean shutdown nothing is recovered, but the active segment must end on a
		// whole message (load_checks.go); if it does not, it is recovered.
		active := l.ActiveSegment()
		if err := active.CheckTail(c.MaxMessageSize); err != nil {
			if !errors.Is(err, errTornTail) {
				return err
			}
			l.logger.Warnf("Found a torn tail in the active segment %d of log %s although it was shut down cleanly (%v); recovering the segment.",
				active.BaseOffset(), l.Name(), err)
			truncated, err := active.Recover(c.MaxMessageSize)
			if err != nil {
				return err
			}
			l.logger.Warnf("Truncated %d bytes of segment %d of log %s.", truncated, active.BaseOffset(), l.Name())
		}
		next, err := active.NextOffset()
		if err != nil {
			return err
		}
		l.recoveryPoint.Store(next)
		return nil
	}
	unflushed := l.LogSegmentsRange(l.recoveryPoint.Load(), 1<<63-1)
	for i, seg := range unflushed {
		l.logger.Infof("Recovering unflushed segment %d in log %s.", seg.BaseOffset(), l.Name())
		truncated, err := seg.Recover(c.MaxMessageSize)
		if errors.Is(err, ErrInvalidOffset) {
			l.logger.Warnf("Found invalid offset during recovery for log %s. Deleting the corrupt segment and creating an empty one with starting offset %d", l.Name(), seg.BaseOffset())
			truncated, err = seg.TruncateTo(seg.BaseOffset())
		}
		if err != nil {
			return err
		}
		if truncated > 0 {
			next, _ := seg.NextOffset()
			l.logger.Warnf("Corruption found in segment %d of log %s, truncating to offset %d.", seg.BaseOffset(), l.Name(), next)
			for _, later := range unflushed[i+1:] {
				if err := l.deleteSegmentLocked(later); err != nil {
					return err
				}
			}
			break
		}
	}
	return nil
}

func (l *Log) hasCleanShutdownFile() bool {
	_, err := os.Stat(filepath.Join(filepath.Dir(l.Dir()), CleanShutdownFile))
	return err == nil
}
