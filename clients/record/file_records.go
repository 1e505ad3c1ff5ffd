package record

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
)

// FileRecordsOptions are the knobs of OpenFileRecords (Kafka's FileRecords.open parameters).
type FileRecordsOptions struct {
	// ReadOnly opens the file for reading only (Kafka's mutable = false). The zero value opens it
	// read-write, creating it if absent.
	ReadOnly bool
	// FileAlreadyExists says the file holds data to keep (a segment being loaded).
	FileAlreadyExists bool
	// Preallocate, for a new file, sizes it to InitFileSize up front (log.preallocate); the logical
	// size starts at 0 and the zero tail is trimmed on Close.
	Preallocate  bool
	InitFileSize int
}

// LogEntryPosition locates a shallow entry in a file: its offset, byte position, and size with
// the log overhead.
//
// Kafka 0.10.2: FileRecords.LogEntryPosition.
type LogEntryPosition struct {
	Offset   int64
	Position int
	Size     int
}

// TimestampAndOffset is a timestamp and the offset of the message carrying it.
//
// Kafka 0.10.2: FileRecords.TimestampAndOffset.
type TimestampAndOffset struct {
	Timestamp int64
	Offset    int64
}

// FileRecords is a message set stored in a file (a segment's .log), or a slice view [start, end)
// of one that shares its open file. Appends go to the end of the logical size with positional
// writes, and every read is positional too (ReadAt, sendfile with an explicit offset), so
// concurrent readers of one segment never disturb each other or the writer. As in Kafka, one
// goroutine appends (the log's lock holder) while others read slices.
//
// Kafka 0.10.2: org.apache.kafka.common.record.FileRecords (kafka.log.FileMessageSet on the Scala side).
type FileRecords struct {
	path    atomic.Pointer[string]
	file    *os.File
	start   int
	end     int
	isSlice bool
	size    atomic.Int64
}

// OpenFileRecords opens (or creates) the file at path as a message set.
//
// Kafka 0.10.2: FileRecords.open (and openChannel).
func OpenFileRecords(path string, opts FileRecordsOptions) (*FileRecords, error) {
	var f *os.File
	var err error
	if opts.ReadOnly {
		f, err = openRegularFile(path, os.O_RDONLY, 0)
	} else {
		f, err = openRegularFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	}
	if err != nil {
		return nil, err
	}
	end := maxInt32
	if !opts.ReadOnly && !opts.FileAlreadyExists && opts.Preallocate {
		if err := f.Truncate(int64(opts.InitFileSize)); err != nil {
			f.Close()
			return nil, err
		}
		end = 0
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	fr := &FileRecords{file: f, start: 0, end: end}
	fr.path.Store(&path)
	fr.size.Store(min(fi.Size(), int64(end)))
	return fr, nil
}

// SizeInBytes implements Records: the logical size (for a slice, end - start).
func (fr *FileRecords) SizeInBytes() int { return int(fr.size.Load()) }

// File is the path of the backing file.
func (fr *FileRecords) File() string { return *fr.path.Load() }

// Channel is the open file (shared by all slices).
func (fr *FileRecords) Channel() *os.File { return fr.file }

// Start is the byte position of this view within the file (0 unless a slice).
func (fr *FileRecords) Start() int { return fr.start }

// IsSlice reports a view created by Read.
func (fr *FileRecords) IsSlice() bool { return fr.isSlice }

// ReadInto fills buf from position (relative to this view) and returns the bytes read; reading
// fewer than len(buf) because the file ends is not an error.
//
// Kafka 0.10.2: FileRecords.readInto.
func (fr *FileRecords) ReadInto(buf []byte, position int) (int, error) {
	n, err := fr.file.ReadAt(buf, int64(fr.start+position))
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

// Read returns a slice view of this set from position for at most size bytes; it copies nothing.
// A view of a view is positioned relative to it. If position is past the end the view is empty.
//
// Kafka 0.10.2: FileRecords.read.
func (fr *FileRecords) Read(position, size int) (*FileRecords, error) {
	if position < 0 {
		return nil, fmt.Errorf("%w: invalid position: %d", ErrIllegalArgument, position)
	}
	if size < 0 {
		return nil, fmt.Errorf("%w: invalid size: %d", ErrIllegalArgument, size)
	}
	limit := fr.start + fr.SizeInBytes()
	start := min(fr.start+position, limit)
	end := limit
	if int64(start)+int64(size) < int64(limit) {
		end = start + size
	}
	v := &FileRecords{file: fr.file, start: start, end: end, isSlice: true}
	v.path.Store(fr.path.Load())
	v.size.Store(int64(end - start))
	return v, nil
}

// Append writes the whole of records at the end of the set and returns the bytes written.
//
// Kafka 0.10.2: FileRecords.append (MemoryRecords.writeFullyTo).
func (fr *FileRecords) Append(records *MemoryRecords) (int, error) {
	if fr.isSlice {
		return 0, fmt.Errorf("%w: append to a slice of %s", ErrIllegalArgument, fr.File())
	}
	n, err := fr.file.WriteAt(records.Bytes(), fr.size.Load())
	fr.size.Add(int64(n))
	return n, err
}

// Flush commits written data to disk (fsync).
//
// Kafka 0.10.2: FileRecords.flush.
func (fr *FileRecords) Flush() error { return fr.file.Sync() }

// Close flushes, trims a preallocated tail, and closes the file. A slice does not own the file:
// closing it does nothing.
//
// Kafka 0.10.2: FileRecords.close.
func (fr *FileRecords) Close() error {
	if fr.isSlice {
		return nil
	}
	if err := fr.Flush(); err != nil {
		fr.file.Close()
		return err
	}
	if err := fr.Trim(); err != nil {
		fr.file.Close()
		return err
	}
	return fr.file.Close()
}

// Delete closes the file (ignoring errors) and removes it.
//
// Kafka 0.10.2: FileRecords.delete.
func (fr *FileRecords) Delete() error {
	_ = fr.file.Close()
	return os.Remove(fr.File())
}

// Trim truncates the file to the logical size (removing a preallocated zero tail).
//
// Kafka 0.10.2: FileRecords.trim.
func (fr *FileRecords) Trim() error {
	_, err := fr.TruncateTo(fr.SizeInBytes())
	return err
}

// SetFile changes the recorded path without touching the file (the caller renamed it).
//
// Kafka 0.10.2: FileRecords.setFile.
func (fr *FileRecords) SetFile(path string) { fr.path.Store(&path) }

// RenameTo renames the backing file; the recorded path changes even if the rename fails, as in
// Kafka (whose atomicMoveWithFallback may have half-succeeded).
//
// Kafka 0.10.2: FileRecords.renameTo.
func (fr *FileRecords) RenameTo(path string) error {
	err := os.Rename(fr.File(), path)
	fr.SetFile(path)
	return err
}

// TruncateTo cuts the set to targetSize bytes (no check that it is an entry boundary) and returns
// the bytes removed. The file is only truncated when it is longer than targetSize.
//
// Kafka 0.10.2: FileRecords.truncateTo.
func (fr *FileRecords) TruncateTo(targetSize int) (int, error) {
	if fr.isSlice {
		return 0, fmt.Errorf("%w: truncating a slice of %s", ErrIllegalArgument, fr.File())
	}
	originalSize := fr.SizeInBytes()
	if targetSize > originalSize || targetSize < 0 {
		return 0, fmt.Errorf("%w: attempt to truncate log segment %s to %d bytes failed, size of this log segment is %d bytes",
			ErrIllegalArgument, fr.File(), targetSize, originalSize)
	}
	fi, err := fr.file.Stat()
	if err != nil {
		return 0, err
	}
	if int64(targetSize) < fi.Size() {
		if err := fr.file.Truncate(int64(targetSize)); err != nil {
			return 0, err
		}
		fr.size.Store(int64(targetSize))
	}
	return originalSize - targetSize, nil
}

// WriteTo implements Records: the whole view, with sendfile when w is a socket.
func (fr *FileRecords) WriteTo(w io.Writer) (int64, error) {
	return fr.WriteToAt(w, 0, fr.SizeInBytes())
}

// WriteToAt writes at most length bytes of this view, starting offset bytes into it, to w (a
// response that was partly sent resumes with offset > 0). When w is a socket (syscall.Conn), the
// bytes go by sendfile(2) with an explicit file offset, never the file's shared position, so two
// fetches of one segment can run at once; otherwise they are copied through a SectionReader.
// It fails if the file was truncated below this view since it was created.
//
// Kafka 0.10.2: FileRecords.writeTo(destChannel, offset, length).
func (fr *FileRecords) WriteToAt(w io.Writer, offset int64, length int) (int64, error) {
	fi, err := fr.file.Stat()
	if err != nil {
		return 0, err
	}
	oldSize := int64(fr.SizeInBytes())
	end := int64(fr.end)
	if !fr.isSlice {
		end = maxInt32 // a preallocated file's end is 0 (its size is tracked apart); only slices are bounded
	}
	if newSize := min(fi.Size(), end) - int64(fr.start); newSize < oldSize {
		return 0, fmt.Errorf("size of FileRecords %s has been truncated during write: old size %d, new size %d",
			fr.File(), oldSize, newSize)
	}
	if offset < 0 || offset > oldSize {
		return 0, fmt.Errorf("%w: offset %d outside a set of %d bytes", ErrIllegalArgument, offset, oldSize)
	}
	position := int64(fr.start) + offset
	count := min(int64(length), oldSize-offset)
	if count <= 0 {
		return 0, nil
	}
	if n, handled, err := sendfileTo(w, fr.file, position, count); handled {
		return n, err
	}
	return io.Copy(w, io.NewSectionReader(fr.file, position, count))
}
