package dumplogsegments

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/clients/record"
	kafkalog "github.com/zkafka/zkafka/core/log"
)

// Suffixes of the files the tool understands (Kafka's Log.LogFileSuffix and friends).
const (
	logFileSuffix       = ".log"
	indexFileSuffix     = ".index"
	timeIndexFileSuffix = ".timeindex"
)

// offsetPair is one (a, b) pair of a verification report.
type offsetPair struct{ a, b int64 }

// DumpLogSegments holds one run's verification findings, printed after all files.
//
// Kafka 0.10.2: kafka.tools.DumpLogSegments (the object's main and its TimeIndexDumpErrors).
type DumpLogSegments struct {
	opts   Options
	out    *bufio.Writer
	parser messageParser

	// per absolute file name, in first-seen order
	indexMismatches    orderedPairs
	timeMismatches     orderedPairs
	timeOutOfOrder     orderedPairs
	timeOffsetNotFound orderedPairs
	nonConsecutive     orderedPairs
}

// orderedPairs maps a file to its findings, remembering the order files were first seen.
type orderedPairs struct {
	files []string
	pairs map[string][]offsetPair
}

func (o *orderedPairs) add(file string, p offsetPair, prepend bool) {
	if o.pairs == nil {
		o.pairs = map[string][]offsetPair{}
	}
	if _, ok := o.pairs[file]; !ok {
		o.files = append(o.files, file)
	}
	if prepend {
		o.pairs[file] = append([]offsetPair{p}, o.pairs[file]...)
	} else {
		o.pairs[file] = append(o.pairs[file], p)
	}
}

// Run dumps every file of opts.Files to out, then writes the verification summaries to
// opts.Stderr. Files with other suffixes are skipped silently, as in Kafka.
func Run(ctx context.Context, opts Options, out io.Writer) error {
	if opts.MaxMessageSize == 0 {
		opts.MaxMessageSize = DefaultMaxMessageSize
	}
	parser, err := newMessageParser(opts)
	if err != nil {
		return err
	}
	d := &DumpLogSegments{opts: opts, out: bufio.NewWriter(out), parser: parser}
	defer d.out.Flush()
	for _, arg := range opts.Files {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := javaFileString(arg)
		base := filepath.Base(name)
		switch {
		case strings.HasSuffix(base, logFileSuffix):
			fmt.Fprintf(d.out, "Dumping %s\n", name)
			err = d.dumpLog(ctx, name)
		case strings.HasSuffix(base, indexFileSuffix):
			fmt.Fprintf(d.out, "Dumping %s\n", name)
			err = d.dumpIndex(name)
		case strings.HasSuffix(base, timeIndexFileSuffix):
			fmt.Fprintf(d.out, "Dumping %s\n", name)
			err = d.dumpTimeIndex(name)
		default:
			continue
		}
		if err != nil {
			return err
		}
	}
	if err := d.out.Flush(); err != nil {
		return err
	}
	stderr := opts.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	return d.printErrors(stderr)
}

// printErrors writes the summaries in Kafka's order.
func (d *DumpLogSegments) printErrors(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, f := range d.indexMismatches.files {
		fmt.Fprintf(bw, "Mismatches in :%s\n", f)
		for _, p := range d.indexMismatches.pairs[f] {
			fmt.Fprintf(bw, "  Index offset: %d, log offset: %d\n", p.a, p.b)
		}
	}
	for _, f := range d.timeMismatches.files {
		fmt.Fprintf(bw, "Found timestamp mismatch in :%s\n", f)
		for _, p := range d.timeMismatches.pairs[f] {
			fmt.Fprintf(bw, "  Index timestamp: %d, log timestamp: %d\n", p.a, p.b)
		}
	}
	for _, f := range d.timeOutOfOrder.files {
		fmt.Fprintf(bw, "Found out of order timestamp in :%s\n", f)
		for _, p := range d.timeOutOfOrder.pairs[f] {
			fmt.Fprintf(bw, "  Index timestamp: %d, Previously indexed timestamp: %d\n", p.a, p.b)
		}
	}
	for _, f := range d.timeOffsetNotFound.files {
		fmt.Fprintln(bw, "The following indexed offsets are not found in the log.")
		for _, p := range d.timeOffsetNotFound.pairs[f] {
			fmt.Fprintf(bw, "Indexed offset: %d, found log offset: %d\n", p.a, p.b)
		}
	}
	for _, f := range d.nonConsecutive.files {
		fmt.Fprintf(bw, "Non-secutive offsets in :%s\n", f)
		for _, p := range d.nonConsecutive.pairs[f] {
			fmt.Fprintf(bw, "  %d is followed by %d\n", p.a, p.b)
		}
	}
	return bw.Flush()
}

// startOffsetOf parses the base offset from a segment file name ("00000000000000000042.log").
func startOffsetOf(path string) (int64, string, error) {
	base := filepath.Base(path)
	prefix, _, _ := strings.Cut(base, ".")
	n, err := strconv.ParseInt(prefix, 10, 64)
	if err != nil {
		return 0, "", fmt.Errorf("%w: For input string: \"%s\"", ErrUsage, prefix)
	}
	return n, filepath.Join(filepath.Dir(path), prefix), nil
}

// dumpLog prints one line per message of a .log file.
func (d *DumpLogSegments) dumpLog(ctx context.Context, path string) error {
	startOffset, _, err := startOffsetOf(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "Starting offset: %d\n", startOffset)
	f, size, err := openLog(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var validBytes int64
	lastOffset := int64(-1)
	for se, err := range readShallowEntries(f, 0, size, d.opts.MaxMessageSize) {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		for e, err := range entriesOf(se.entry, d.opts.DeepIteration) {
			if err != nil {
				return err
			}
			rec := e.Record
			if lastOffset == -1 {
				lastOffset = e.Offset
			} else if rec.CompressionType() == record.NONE && e.Offset != lastOffset+1 {
				// Uncompressed messages must have consecutive offsets.
				d.nonConsecutive.add(absolutePath(path), offsetPair{lastOffset, e.Offset}, true)
			}
			lastOffset = e.Offset
			if err := d.printMessage(e, validBytes); err != nil {
				return err
			}
		}
		validBytes += se.Size()
	}
	if trailing := size - validBytes; trailing > 0 {
		fmt.Fprintf(d.out, "Found %d invalid bytes at the end of %s\n", trailing, filepath.Base(path))
	}
	return nil
}

// printMessage writes one message line ("offset: ... crc: ..." plus key/payload). A decoder
// failure ends the dump, as the decoder's exception ends Kafka's tool (the partial line is
// flushed first, as Java's print had already written it).
func (d *DumpLogSegments) printMessage(e record.LogEntry, position int64) error {
	rec := e.Record
	fmt.Fprintf(d.out, "offset: %d position: %d %s: %d isvalid: %t payloadsize: %d magic: %d compresscodec: %s crc: %d",
		e.Offset, position, rec.TimestampType(), rec.Timestamp(), rec.IsValid(), rec.ValueSize(), rec.Magic(),
		codecName(rec.CompressionType()), rec.Checksum())
	if rec.HasKey() {
		fmt.Fprintf(d.out, " keysize: %d", rec.KeySize())
	}
	if d.opts.PrintDataLog {
		key, payload, err := d.parser.parse(rec)
		if err != nil {
			d.out.WriteByte('\n')
			return err
		}
		if key != nil {
			fmt.Fprintf(d.out, " key: %s", *key)
		}
		if payload != nil {
			fmt.Fprintf(d.out, " payload: %s", *payload)
		}
	}
	return d.out.WriteByte('\n')
}

// codecName is the Java enum constant name Kafka prints (NONE, GZIP, SNAPPY, LZ4).
func codecName(c record.CompressionType) string { return strings.ToUpper(c.Name()) }

// entriesOf yields the entry itself (shallow) or its inner messages (deep).
func entriesOf(e record.LogEntry, deep bool) func(func(record.LogEntry, error) bool) {
	if deep {
		return e.DeepEntries()
	}
	return func(yield func(record.LogEntry, error) bool) { yield(e, nil) }
}

// firstDeepEntryAt reads the entry at position (within maxSize bytes of it) and returns its
// first inner message, as the index check does.
func firstDeepEntryAt(f io.ReaderAt, fileSize, position int64, maxSize int) (record.LogEntry, error) {
	end := min(fileSize, position+int64(maxSize))
	for se, err := range readShallowEntries(f, position, end, maxInt32) {
		if err != nil {
			return record.LogEntry{}, err
		}
		for e, err := range se.entry.DeepEntries() {
			return e, err
		}
	}
	return record.LogEntry{}, fmt.Errorf("no message at position %d", position)
}

const maxInt32 = 1<<31 - 1

// dumpIndex prints (and checks against the log) every entry of an offset index.
func (d *DumpLogSegments) dumpIndex(path string) error {
	startOffset, prefix, err := startOffsetOf(path)
	if err != nil {
		return err
	}
	if d.opts.IndexSanityCheck {
		idx, err := kafkalog.NewOffsetIndex(path, startOffset, -1, nil)
		if err != nil {
			return err
		}
		defer idx.Close()
		if err := idx.SanityCheck(); err != nil {
			return err
		}
		fmt.Fprintf(d.out, "%s passed sanity check.\n", path)
		return nil
	}
	f, size, err := openLog(prefix + logFileSuffix)
	if err != nil {
		return err
	}
	defer f.Close()
	entries, err := readIndexFile(path, kafkalog.OffsetIndexEntrySize)
	if err != nil {
		return err
	}
	for i, entry := range entries {
		e, err := firstDeepEntryAt(f, size, int64(entry.position), d.opts.MaxMessageSize)
		if err != nil {
			return err
		}
		if indexed := startOffset + int64(entry.relOffset); e.Offset != indexed {
			d.indexMismatches.add(absolutePath(path), offsetPair{indexed, e.Offset}, true)
		}
		// The tail of a preallocated index is zeros: a zero relative offset after the first
		// entry means the real entries have ended.
		if entry.relOffset == 0 && i > 0 {
			return nil
		}
		if !d.opts.VerifyIndexOnly {
			fmt.Fprintf(d.out, "offset: %d position: %d\n", startOffset+int64(entry.relOffset), entry.position)
		}
	}
	return nil
}

// dumpTimeIndex prints (and checks against the log) every entry of a time index.
func (d *DumpLogSegments) dumpTimeIndex(path string) error {
	startOffset, prefix, err := startOffsetOf(path)
	if err != nil {
		return err
	}
	if d.opts.IndexSanityCheck {
		idx, err := kafkalog.NewTimeIndex(path, startOffset, -1, nil)
		if err != nil {
			return err
		}
		defer idx.Close()
		if err := idx.SanityCheck(); err != nil {
			return err
		}
		fmt.Fprintf(d.out, "%s passed sanity check.\n", path)
		return nil
	}
	f, size, err := openLog(prefix + logFileSuffix)
	if err != nil {
		return err
	}
	defer f.Close()
	offsetEntries, err := readIndexFile(prefix+indexFileSuffix, kafkalog.OffsetIndexEntrySize)
	if err != nil {
		return err
	}
	entries, err := readIndexFile(path, kafkalog.TimeIndexEntrySize)
	if err != nil {
		return err
	}
	abs := absolutePath(path)
	prevTimestamp := record.NoTimestamp
	for i, entry := range entries {
		indexed := startOffset + int64(entry.relOffset)
		position := lookupPosition(offsetEntries, startOffset, indexed)
		var found *record.LogEntry
		for se, err := range readShallowEntries(f, int64(position), size, maxInt32) {
			if err != nil {
				return err
			}
			if se.entry.Offset >= indexed {
				found = &se.entry
				break
			}
		}
		switch {
		case found == nil:
			d.timeOffsetNotFound.add(abs, offsetPair{indexed, -1}, false)
		case found.Offset != indexed:
			d.timeOffsetNotFound.add(abs, offsetPair{indexed, found.Offset}, false)
		default:
			maxTimestamp := record.NoTimestamp
			for e, err := range found.DeepEntries() {
				if err != nil {
					return err
				}
				maxTimestamp = max(maxTimestamp, e.Record.Timestamp())
			}
			if maxTimestamp != entry.timestamp {
				d.timeMismatches.add(abs, offsetPair{entry.timestamp, maxTimestamp}, false)
			}
			if prevTimestamp >= entry.timestamp {
				d.timeOutOfOrder.add(abs, offsetPair{entry.timestamp, prevTimestamp}, false)
			}
			if entry.relOffset == 0 && i > 0 {
				return nil
			}
		}
		if !d.opts.VerifyIndexOnly {
			fmt.Fprintf(d.out, "timestamp: %d offset: %d\n", entry.timestamp, indexed)
		}
		prevTimestamp = entry.timestamp
	}
	return nil
}

// javaFileString renders a path as java.io.File.toString does: repeated separators collapse
// and a trailing separator is dropped (no other cleaning).
func javaFileString(p string) string {
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	return p
}

// absolutePath is File.getAbsolutePath: the working directory prepended, nothing resolved.
func absolutePath(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	return wd + string(filepath.Separator) + p
}
