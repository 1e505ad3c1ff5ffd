package log

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"
)

// AbstractIndex is the memory-mapped, fixed-entry-size file shared by OffsetIndex and TimeIndex.
//
// A new index file is preallocated to maxIndexSize rounded down to a whole number of entries and
// mapped; appends write into the mapping. An existing file is assumed valid and its entry count is
// its length divided by the entry size, which is why an index must be trimmed to exactly its entries
// (TrimToValidSize) whenever it stops being the active segment's index: a preallocated tail of zeros
// would otherwise be read back as entries. The live index of the active segment is re-extended with
// Resize so appends have room.
//
// Go differences from the Scala class: the JVM unmaps a MappedByteBuffer when it is garbage
// collected, Go must munmap explicitly, so Close and Delete unmap and the index is unusable after.
// Lookups take the read lock because Resize replaces the mapping (on Linux the Scala code reads
// without locking, relying on the old buffer staying valid until GC).
//
// Kafka 0.10.2: kafka.log.AbstractIndex
type AbstractIndex struct {
	mu           sync.RWMutex
	file         string
	baseOffset   int64
	maxIndexSize int
	entrySize    int
	mmap         []byte // the mapping; nil when the file has length 0
	length       int    // mapped length (== file length)
	entries      int
	maxEntries   int
	closed       bool // after Close/Delete: no mapping; reads see an empty index
	logger       *logrus.Entry
}

func roundDownToExactMultiple(n, factor int) int { return factor * (n / factor) }

// writeMapped runs put, which stores into the mapping. A store to a page the file system cannot
// back (a sparse index file on a full disk) raises SIGBUS; here it becomes an ErrKafkaStorage
// error, so the broker halts as after any storage error instead of crashing in the middle of a
// request (the JVM throws an InternalError at the same place).
func (idx *AbstractIndex) writeMapped(put func()) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(interface{ Addr() uintptr })
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("write to %s at address %#x: %w: %v", idx.file, f.Addr(), ErrKafkaStorage, r)
		}
	}()
	put()
	return nil
}

// openAbstractIndex opens or creates the index file and maps it. Caller fills in the concrete
// index's cached fields afterwards.
func openAbstractIndex(file string, baseOffset int64, maxIndexSize, entrySize int, logger *logrus.Entry) (*AbstractIndex, error) {
	logger = orNopLogger(logger)
	idx := &AbstractIndex{file: file, baseOffset: baseOffset, maxIndexSize: maxIndexSize, entrySize: entrySize, logger: logger}
	// Raw descriptors: the file is only sized and mapped here, and os.File's poller
	// registration would cost four more system calls per index opened.
	fd, err := unix.Open(file, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
	newlyCreated := err == nil
	if errors.Is(err, unix.EEXIST) {
		fd, err = unix.Open(file, unix.O_RDWR|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w: %w", file, ErrKafkaStorage, &os.PathError{Op: "open", Path: file, Err: err})
	}
	defer unix.Close(fd)
	if newlyCreated {
		if maxIndexSize < entrySize {
			_ = os.Remove(file)
			return nil, fmt.Errorf("invalid max index size %d for %s: %w", maxIndexSize, file, ErrIllegalArgument)
		}
		if err := unix.Ftruncate(fd, int64(roundDownToExactMultiple(maxIndexSize, entrySize))); err != nil {
			return nil, fmt.Errorf("preallocate index %s: %w: %w", file, ErrKafkaStorage, err)
		}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("stat index %s: %w: %w", file, ErrKafkaStorage, err)
	}
	if err := idx.mapFile(fd, int(st.Size)); err != nil {
		return nil, err
	}
	if newlyCreated {
		idx.entries = 0
	} else {
		// An existing file is trusted: every whole entry in it counts.
		idx.entries = roundDownToExactMultiple(idx.length, entrySize) / entrySize
	}
	return idx, nil
}

// mapFile replaces the mapping with one of size bytes of f. Caller holds mu (or is the constructor).
func (idx *AbstractIndex) mapFile(fd int, size int) error {
	if idx.mmap != nil {
		if err := unix.Munmap(idx.mmap); err != nil {
			return fmt.Errorf("munmap %s: %w: %w", idx.file, ErrKafkaStorage, err)
		}
		idx.mmap = nil
	}
	if size > 0 {
		m, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		if err != nil {
			return fmt.Errorf("mmap %s: %w: %w", idx.file, ErrKafkaStorage, err)
		}
		idx.mmap = m
	}
	idx.length = size
	idx.maxEntries = size / idx.entrySize
	return nil
}

// File is the current path of the index file.
func (idx *AbstractIndex) File() string { idx.mu.RLock(); defer idx.mu.RUnlock(); return idx.file }

// BaseOffset is the base offset of the segment the index belongs to.
func (idx *AbstractIndex) BaseOffset() int64 { return idx.baseOffset }

// MaxIndexSize is the size the index is preallocated (and re-extended) to.
func (idx *AbstractIndex) MaxIndexSize() int { return idx.maxIndexSize }

// EntrySize is the size of one entry in bytes (8 or 12).
func (idx *AbstractIndex) EntrySize() int { return idx.entrySize }

// Entries is the number of entries written.
func (idx *AbstractIndex) Entries() int { idx.mu.RLock(); defer idx.mu.RUnlock(); return idx.entries }

// MaxEntries is how many entries fit in the current mapping.
func (idx *AbstractIndex) MaxEntries() int {
	idx.mu.RLock()
	defer idx.mu.RUnlock()
	return idx.maxEntries
}

// SizeInBytes is entries × entry size (the valid part of the file).
func (idx *AbstractIndex) SizeInBytes() int {
	idx.mu.RLock()
	defer idx.mu.RUnlock()
	return idx.entries * idx.entrySize
}

// FileLength is the current length of the file (the mapped size).
func (idx *AbstractIndex) FileLength() int { idx.mu.RLock(); defer idx.mu.RUnlock(); return idx.length }

// Resize sets the file length to newSize rounded down to whole entries and remaps it, keeping the
// entries written so far.
func (idx *AbstractIndex) Resize(newSize int) error {
	idx.mu.Lock()
	defer idx.mu.Unlock()
	return idx.resizeLocked(newSize)
}

func (idx *AbstractIndex) resizeLocked(newSize int) error {
	if idx.closed {
		return fmt.Errorf("index %s is closed: %w", idx.file, ErrKafkaStorage)
	}
	rounded := roundDownToExactMultiple(newSize, idx.entrySize)
	if rounded < idx.entries*idx.entrySize {
		return fmt.Errorf("resize %s to %d bytes would drop entries (%d entries): %w", idx.file, rounded, idx.entries, ErrIllegalArgument)
	}
	if rounded == idx.length {
		return nil // the file and the mapping have that size already
	}
	fd, err := unix.Open(idx.file, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("resize index %s: %w: %w", idx.file, ErrKafkaStorage, &os.PathError{Op: "open", Path: idx.file, Err: err})
	}
	defer unix.Close(fd)
	// Unmap before truncating so no mapped page lies beyond the new end of file.
	if idx.mmap != nil {
		if err := unix.Munmap(idx.mmap); err != nil {
			return fmt.Errorf("munmap %s: %w: %w", idx.file, ErrKafkaStorage, err)
		}
		idx.mmap = nil
	}
	if err := unix.Ftruncate(fd, int64(rounded)); err != nil {
		return fmt.Errorf("resize index %s: %w: %w", idx.file, ErrKafkaStorage, err)
	}
	return idx.mapFile(fd, rounded)
}

// TrimToValidSize shrinks the file to exactly the bytes of its entries.
func (idx *AbstractIndex) TrimToValidSize() error {
	idx.mu.Lock()
	defer idx.mu.Unlock()
	return idx.resizeLocked(idx.entries * idx.entrySize)
}

// RenameTo moves the index file; the mapping stays valid (it refers to the inode).
func (idx *AbstractIndex) RenameTo(newPath string) error {
	idx.mu.Lock()
	defer idx.mu.Unlock()
	if err := os.Rename(idx.file, newPath); err != nil {
		return fmt.Errorf("rename %s to %s: %w: %w", idx.file, newPath, ErrKafkaStorage, err)
	}
	idx.file = newPath
	return nil
}

// Flush msyncs the mapping to disk.
func (idx *AbstractIndex) Flush() error {
	idx.mu.Lock()
	defer idx.mu.Unlock()
	if idx.mmap == nil {
		return nil
	}
	if err := unix.Msync(idx.mmap, unix.MS_SYNC); err != nil {
		return fmt.Errorf("msync %s: %w: %w", idx.file, ErrKafkaStorage, err)
	}
	return nil
}

// Close trims the file to its entries and unmaps it.
func (idx *AbstractIndex) Close() error {
	idx.mu.Lock()
	defer idx.mu.Unlock()
	if idx.closed {
		return nil
	}
	if err := idx.resizeLocked(idx.entries * idx.entrySize); err != nil {
		return err
	}
	return idx.unmapLocked()
}

func (idx *AbstractIndex) unmapLocked() error {
	if !idx.closed {
		idx.closed = true
		idx.entries = 0
	}
	if idx.mmap == nil {
		return nil
	}
	err := unix.Munmap(idx.mmap)
	idx.mmap = nil
	idx.length = 0
	idx.maxEntries = 0
	if err != nil {
		return fmt.Errorf("munmap %s: %w: %w", idx.file, ErrKafkaStorage, err)
	}
	return nil
}

// Delete unmaps and removes the file. A missing file is not an error.
func (idx *AbstractIndex) Delete() error {
	idx.mu.Lock()
	defer idx.mu.Unlock()
	idx.logger.Infof("Deleting index %s", idx.file)
	_ = idx.unmapLocked()
	if err := os.Remove(idx.file); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("delete index %s: %w: %w", idx.file, ErrKafkaStorage, err)
	}
	return nil
}

// slot access helpers; caller holds at least the read lock.
func (idx *AbstractIndex) int32At(pos int) int32 {
	return int32(binary.BigEndian.Uint32(idx.mmap[pos:]))
}
func (idx *AbstractIndex) int64At(pos int) int64 {
	return int64(binary.BigEndian.Uint64(idx.mmap[pos:]))
}

// indexSlotFor finds the slot of the largest entry whose key (as returned by key) is <= target, or
// -1 when the index is empty or its first key is already larger. Caller holds at least the read
// lock. The loop rounds the midpoint up so that lo always advances.
func (idx *AbstractIndex) indexSlotFor(target int64, key func(n int) int64) int {
	if idx.entries == 0 {
		return -1
	}
	if key(0) > target {
		return -1
	}
	lo, hi := 0, idx.entries-1
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		k := key(mid)
		switch {
		case k > target:
			hi = mid - 1
		case k < target:
			lo = mid
		default:
			return mid
		}
	}
	return lo
}

// writePos is the byte position of the next entry; caller holds the lock.
func (idx *AbstractIndex) writePos() int { return idx.entries * idx.entrySize }

// orNopLogger returns l, or a logger that discards everything when l is nil (so callers and tests may
// pass nil without the package reaching for a global logger).
func orNopLogger(l *logrus.Entry) *logrus.Entry {
	if l != nil {
		return l
	}
	nl := logrus.New()
	nl.SetOutput(io.Discard)
	return logrus.NewEntry(nl)
}
