package log

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
)

// LeaderEpochCheckpointFilename is the per-partition file of the leader-epoch cache, in the
// partition's directory beside its segments (only with zkafka.leader.epoch.truncation.enable).
const LeaderEpochCheckpointFilename = "leader-epoch-checkpoint"

// leaderEpochCheckpointVersion is the only version line Kafka 0.11 writes or accepts.
const leaderEpochCheckpointVersion = 0

// ErrMalformedLeaderEpochCheckpoint wraps every read failure caused by the file's content.
var ErrMalformedLeaderEpochCheckpoint = errors.New("malformed leader epoch checkpoint")

// EpochEntry is one leader epoch and the offset of the first message this replica holds from it.
//
// Kafka 0.11.0: kafka.server.epoch.EpochEntry.
type EpochEntry struct {
	Epoch       int32
	StartOffset int64
}

// String formats like the case class: EpochEntry(epoch,startOffset).
func (e EpochEntry) String() string { return fmt.Sprintf("EpochEntry(%d,%d)", e.Epoch, e.StartOffset) }

// LeaderEpochCheckpointFile reads and writes one partition's leader-epoch-checkpoint.
//
// Kafka 0.11.0: kafka.server.checkpoints.LeaderEpochCheckpointFile over CheckpointFile[EpochEntry]
// (moved into core/log with the cache it persists; see LeaderEpochFileCache).
//
// Format, Kafka 0.11's byte for byte: a line "0" (version), a line with the entry count, then one
// "epoch startOffset" line per entry in cache order, each ended by "\n". A write goes to
// <file>.tmp, is fsynced and renamed over the file (writeFileAtomically, as every checkpoint of
// this package), so a crash leaves the old or the new content, never a mixture.
type LeaderEpochCheckpointFile struct {
	path string
	mu   sync.Mutex
}

// NewLeaderEpochCheckpointFile returns the checkpoint at path, creating an empty file if none
// exists (as 0.11's CheckpointFile constructor does).
func NewLeaderEpochCheckpointFile(path string) (*LeaderEpochCheckpointFile, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create leader epoch checkpoint %s: %w: %w", path, ErrKafkaStorage, err)
	}
	_ = f.Close()
	return &LeaderEpochCheckpointFile{path: path}, nil
}

// Path is the file's path.
func (c *LeaderEpochCheckpointFile) Path() string { return c.path }

// FormatLeaderEpochCheckpoint renders entries in the checkpoint text format.
func FormatLeaderEpochCheckpoint(entries []EpochEntry) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n%d\n", leaderEpochCheckpointVersion, len(entries))
	for _, e := range entries {
		fmt.Fprintf(&b, "%d %d\n", e.Epoch, e.StartOffset)
	}
	return []byte(b.String())
}

// Write replaces the file's content with entries (tmp file + fsync + rename).
func (c *LeaderEpochCheckpointFile) Write(entries []EpochEntry) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return writeFileAtomically(c.path, FormatLeaderEpochCheckpoint(entries), "leader epoch checkpoint")
}

// Read parses the file. An empty file, or one holding only the version line, has no entries.
func (c *LeaderEpochCheckpointFile) Read() ([]EpochEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := os.Open(c.path)
	if err != nil {
		return nil, fmt.Errorf("read leader epoch checkpoint %s: %w: %w", c.path, ErrKafkaStorage, err)
	}
	defer f.Close()
	entries, err := ParseLeaderEpochCheckpoint(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.path, err)
	}
	return entries, nil
}

// ParseLeaderEpochCheckpoint parses checkpoint text from r. Besides 0.11's checks (version,
// "epoch offset" lines of two numbers, the announced count), it rejects what the cache could not
// have written: a negative epoch or offset, epochs not strictly increasing, start offsets going
// backwards. Such a file did not come from this code, and trusting part of it could keep a
// divergent suffix of the log.
func ParseLeaderEpochCheckpoint(r io.Reader) ([]EpochEntry, error) {
	br := bufio.NewReader(r)
	malformed := func(line string) error {
		return fmt.Errorf("%w: Malformed line in checkpoint file: %s'", ErrMalformedLeaderEpochCheckpoint, line)
	}
	expected, ok, err := readCheckpointHeader(br, leaderEpochCheckpointVersion, malformed, func(version int64) error {
		return fmt.Errorf("%w: Unrecognized version of the checkpoint file: %d", ErrMalformedLeaderEpochCheckpoint, version)
	})
	if err != nil || !ok {
		return nil, err
	}
	var entries []EpochEntry
	for {
		line, ok, err := readJavaLine(br)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrKafkaStorage, err)
		}
		if !ok {
			break
		}
		fields := splitJavaWhitespace(line)
		if len(fields) != 2 {
			return nil, malformed(line)
		}
		epoch, eerr := strconv.ParseInt(fields[0], 10, 32)
		offset, oerr := strconv.ParseInt(fields[1], 10, 64)
		if eerr != nil || oerr != nil {
			return nil, malformed(line)
		}
		e := EpochEntry{Epoch: int32(epoch), StartOffset: offset}
		if e.Epoch < 0 || e.StartOffset < 0 {
			return nil, malformed(line)
		}
		if n := len(entries); n > 0 && (e.Epoch <= entries[n-1].Epoch || e.StartOffset < entries[n-1].StartOffset) {
			return nil, fmt.Errorf("%w: %s does not follow %s", ErrMalformedLeaderEpochCheckpoint, e, entries[n-1])
		}
		entries = append(entries, e)
	}
	if int64(len(entries)) != expected {
		return nil, fmt.Errorf("%w: Expected %d entries in checkpoint file, but found only %d", ErrMalformedLeaderEpochCheckpoint, expected, len(entries))
	}
	return entries, nil
}
