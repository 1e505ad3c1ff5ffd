package log

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestIndexWriteOnAFullDiskIsAStorageError: an index file is preallocated sparse and written
// through its mapping; when the disk is full, the first store into a page the file system cannot
// back raises SIGBUS. The append must fail with ErrKafkaStorage (which halts the broker) instead
// of crashing the process, and the index must not count the entry.
func TestIndexWriteOnAFullDiskIsAStorageError(t *testing.T) {
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("cannot mount a tmpfs on %s: %v", dir, err)
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	idx, err := NewOffsetIndex(filepath.Join(dir, "00000000000000000000.index"), 0, 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	// Take every free page of the file system.
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, unix.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()
	err = idx.Append(10, 100)
	if !errors.Is(err, ErrKafkaStorage) {
		t.Fatalf("append into an unbacked page: %v, want ErrKafkaStorage", err)
	}
	if idx.Entries() != 0 {
		t.Errorf("%d entries after the failed append", idx.Entries())
	}
}
