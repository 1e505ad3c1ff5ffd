package utils

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// FileLock is an exclusive advisory lock (flock) on a file, used by LogManager to hold
// each log directory's .lock for as long as the broker runs.
//
// Kafka 0.10.2: kafka.utils.FileLock. Java's FileChannel.tryLock also refuses a second lock
// taken inside the same JVM; flock(2) locks belong to the open file description, so a
// second FileLock on the same path in the same process also fails here, which keeps
// Kafka's "another process or thread is using this directory" behaviour.
type FileLock struct {
	path string
	mu   sync.Mutex
	f    *os.File
}

// NewFileLock opens (creating if needed) the lock file; it does not lock it yet.
func NewFileLock(path string) (*FileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	return &FileLock{path: path, f: f}, nil
}

// Path is the lock file's path.
func (l *FileLock) Path() string { return l.path }

// TryLock takes the lock without waiting; false means somebody else holds it.
func (l *FileLock) TryLock() (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return false, errors.New("file lock destroyed")
	}
	err := unix.Flock(int(l.f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("flock %s: %w", l.path, err)
	}
	return true, nil
}

// Unlock releases the lock.
func (l *FileLock) Unlock() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	return unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
}

// Destroy releases the lock and closes the file (the file itself stays, as in Kafka).
func (l *FileLock) Destroy() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	_ = unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	err := l.f.Close()
	l.f = nil
	return err
}
