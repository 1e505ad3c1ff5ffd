package log

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/zkafka/zkafka/clients/common"
)

// The LogManager and the cleaner need a few operations on Log beyond its own file; they are
// written here against Log's exported and package state.

// parentDir is the data directory holding the log (Kafka's log.dir.getParentFile).
func (l *Log) parentDir() string { return filepath.Dir(l.Dir()) }

// renameDir moves a closed log's directory (topic deletion: <tp>.<uuid>-delete). Open file
// descriptors stay valid across a rename; the log's path is updated for later deletion.
//
// Kafka 0.10.2: the rename in LogManager.asyncDelete (removedLog.dir = renamedDir).
func (l *Log) renameDir(newDir string) error {
	if err := os.Rename(l.Dir(), newDir); err != nil {
		return err
	}
	l.SetDir(newDir)
	return nil
}

// logPool is the concurrent map of live logs LogManager and LogCleaner share.
//
// Kafka 0.10.2: kafka.utils.Pool[TopicPartition, Log] (not ported as a class: a map and a lock).
type logPool struct {
	mu   sync.RWMutex
	logs map[common.TopicPartition]*Log
}

func newLogPool() *logPool { return &logPool{logs: map[common.TopicPartition]*Log{}} }

func (p *logPool) get(tp common.TopicPartition) *Log {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.logs[tp]
}

// putIfAbsent stores log unless tp is present; it returns the previous log, if any.
func (p *logPool) putIfAbsent(tp common.TopicPartition, log *Log) *Log {
	p.mu.Lock()
	defer p.mu.Unlock()
	if prev, ok := p.logs[tp]; ok {
		return prev
	}
	p.logs[tp] = log
	return nil
}

func (p *logPool) remove(tp common.TopicPartition) *Log {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.logs[tp]
	delete(p.logs, tp)
	return l
}

func (p *logPool) snapshot() map[common.TopicPartition]*Log {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make(map[common.TopicPartition]*Log, len(p.logs))
	for k, v := range p.logs {
		out[k] = v
	}
	return out
}
