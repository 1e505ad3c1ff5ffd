package log

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/zkafka/zkafka/clients/common"
)

// Names of the per-log-directory checkpoint files (docs/formats.md §4.1).
const (
	// RecoveryPointCheckpointFile holds each log's recovery point (LogManager).
	RecoveryPointCheckpointFile = "recovery-point-offset-checkpoint"
	// ReplicationOffsetCheckpointFile holds each replica's high watermark (ReplicaManager).
	ReplicationOffsetCheckpointFile = "replication-offset-checkpoint"
	// CleanerOffsetCheckpointFile holds each compacted log's first dirty offset (LogCleanerManager).
	CleanerOffsetCheckpointFile = "cleaner-offset-checkpoint"
)

// offsetCheckpointVersion is the only version line 0.10.2 writes or accepts.
const offsetCheckpointVersion = 0

// checkpointFieldSeparator splits a line the way Java's Pattern.compile("\\s+").split does.
var checkpointFieldSeparator = regexp.MustCompile(`\s+`)

// ErrMalformedCheckpoint wraps every read failure caused by the file's content (Kafka throws
// an IOException for these).
var ErrMalformedCheckpoint = errors.New("malformed offset checkpoint")

// OffsetCheckpoint reads and writes one "topic partition offset" checkpoint file.
//
// Kafka 0.10.2: kafka.server.OffsetCheckpoint (moved into core/log, docs/design.md §1.2 row 5).
//
// Format (docs/formats.md §4.3): a line "0" (version), a line with the entry count, then one
// "topic partition offset" line per entry, each ended by "\n". A write goes to <file>.tmp,
// is fsynced, and is renamed over the file, so a crash leaves either the old or the new
// content, never a mixture. Kafka writes entries in hash-map order; this writes them
// sorted by topic then partition, which is one of the orders Kafka may produce and keeps
// the file deterministic.
type OffsetCheckpoint struct {
	path string
	mu   sync.Mutex
}

// NewOffsetCheckpoint returns the checkpoint at path, creating an empty file if none exists
// (as Kafka's constructor does, so that a later read sees an empty map).
func NewOffsetCheckpoint(path string) (*OffsetCheckpoint, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create offset checkpoint %s: %w", path, err)
	}
	_ = f.Close()
	return &OffsetCheckpoint{path: path}, nil
}

// Path is the checkpoint file's path.
func (c *OffsetCheckpoint) Path() string { return c.path }

// FormatOffsetCheckpoint renders offsets in the checkpoint text format.
func FormatOffsetCheckpoint(offsets map[common.TopicPartition]int64) []byte {
	tps := make([]common.TopicPartition, 0, len(offsets))
	for tp := range offsets {
		tps = append(tps, tp)
	}
	sort.Slice(tps, func(i, j int) bool {
		if tps[i].Topic != tps[j].Topic {
			return tps[i].Topic < tps[j].Topic
		}
		return tps[i].Partition < tps[j].Partition
	})
	var b strings.Builder
	b.WriteString(strconv.Itoa(offsetCheckpointVersion))
	b.WriteByte('\n')
	b.WriteString(strconv.Itoa(len(offsets)))
	b.WriteByte('\n')
	for _, tp := range tps {
		fmt.Fprintf(&b, "%s %d %d\n", tp.Topic, tp.Partition, offsets[tp])
	}
	return []byte(b.String())
}

// Write replaces the file's content with offsets (tmp file + fsync + rename).
func (c *OffsetCheckpoint) Write(offsets map[common.TopicPartition]int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return writeFileAtomically(c.path, FormatOffsetCheckpoint(offsets), "offset checkpoint")
}

// writeFileAtomically replaces path's content with data the way every checkpoint file is
// written: into <path>.tmp, fsynced, then renamed over path, so a crash leaves either the old or
// the new content. what names the file in errors.
func writeFileAtomically(path string, data []byte, what string) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("write %s %s: %w", what, path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s %s: %w", what, tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replace %s %s: %w", what, path, err)
	}
	return nil
}

// readCheckpointHeader reads the version and count lines every checkpoint file starts with. ok is
// false when the input ends before the count (an empty file: no entries). malformed reports a
// line that is not a number; unrecognized a version other than version.
func readCheckpointHeader(br *bufio.Reader, version int64, malformed func(line string) error,
	unrecognized func(version int64) error) (expected int64, ok bool, err error) {
	line, ok, err := readJavaLine(br)
	if err != nil || !ok {
		return 0, false, err
	}
	v, err := strconv.ParseInt(line, 10, 32)
	if err != nil {
		return 0, false, malformed(line)
	}
	if v != version {
		return 0, false, unrecognized(v)
	}
	line, ok, err = readJavaLine(br)
	if err != nil || !ok {
		return 0, false, err
	}
	expected, err = strconv.ParseInt(line, 10, 32)
	if err != nil {
		return 0, false, malformed(line)
	}
	return expected, true, nil
}

// Read parses the file. An empty file, or one holding only the version line, is an empty
// map. Content errors wrap ErrMalformedCheckpoint and carry Kafka's messages.
func (c *OffsetCheckpoint) Read() (map[common.TopicPartition]int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := os.Open(c.path)
	if err != nil {
		return nil, fmt.Errorf("read offset checkpoint %s: %w", c.path, err)
	}
	defer f.Close()
	return ParseOffsetCheckpoint(f)
}

// ParseOffsetCheckpoint parses checkpoint text from r.
func ParseOffsetCheckpoint(r io.Reader) (map[common.TopicPartition]int64, error) {
	br := bufio.NewReader(r)
	malformed := func(line string) error {
		// Kafka's message has the stray trailing quote too.
		return fmt.Errorf("%w: Malformed line in offset checkpoint file: %s'", ErrMalformedCheckpoint, line)
	}
	expected, ok, err := readCheckpointHeader(br, offsetCheckpointVersion, malformed, func(version int64) error {
		return fmt.Errorf("%w: Unrecognized version of the highwatermark checkpoint file: %d", ErrMalformedCheckpoint, version)
	})
	if err != nil {
		return nil, err
	}
	if !ok {
		return map[common.TopicPartition]int64{}, nil
	}
	offsets := make(map[common.TopicPartition]int64)
	for {
		line, ok, err := readJavaLine(br)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		fields := splitJavaWhitespace(line)
		if len(fields) != 3 {
			return nil, malformed(line)
		}
		partition, perr := strconv.ParseInt(fields[1], 10, 32)
		offset, oerr := strconv.ParseInt(fields[2], 10, 64)
		if perr != nil || oerr != nil {
			return nil, malformed(line)
		}
		offsets[common.TopicPartition{Topic: fields[0], Partition: int32(partition)}] = offset
	}
	if int64(len(offsets)) != expected {
		return nil, fmt.Errorf("%w: Expected %d entries but found only %d", ErrMalformedCheckpoint, expected, len(offsets))
	}
	return offsets, nil
}

// readJavaLine reads one line like BufferedReader.readLine: the terminator is "\n", "\r" or
// "\r\n" and is not returned; ok is false at end of input.
func readJavaLine(br *bufio.Reader) (string, bool, error) {
	var b strings.Builder
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			if b.Len() == 0 {
				return "", false, nil
			}
			return b.String(), true, nil
		}
		if err != nil {
			return "", false, err
		}
		switch c {
		case '\n':
			return b.String(), true, nil
		case '\r':
			if next, err := br.Peek(1); err == nil && next[0] == '\n' {
				_, _ = br.ReadByte()
			}
			return b.String(), true, nil
		}
		b.WriteByte(c)
	}
}

// splitJavaWhitespace mirrors Pattern.split: a leading separator yields an empty first field,
// trailing empty fields are dropped.
func splitJavaWhitespace(s string) []string {
	fields := checkpointFieldSeparator.Split(s, -1)
	for len(fields) > 0 && fields[len(fields)-1] == "" {
		fields = fields[:len(fields)-1]
	}
	return fields
}
