package producer

import (
	"fmt"
	"sync"
	"time"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/clients/protocol"
)

// BufferPool bounds the memory the producer holds for records (buffer.memory): Allocate takes
// bytes out of it, blocking up to max.block.ms while it is exhausted, and Deallocate gives them
// back. Buffers of exactly poolableSize (batch.size) are kept on a free list and reused, so a
// steady stream of batches allocates nothing; other sizes are left to the garbage collector and
// only their count is returned. Waiters are served in order.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.internals.BufferPool (a ReentrantLock with one
// Condition per waiter becomes a mutex with one channel per waiter).
type BufferPool struct {
	totalMemory  int64
	poolableSize int
	time         common.Time
	waitTime     *metrics.Sensor

	mu              sync.Mutex
	free            [][]byte
	waiters         []chan struct{} // FIFO; each signalled (cap 1) when memory may be there
	availableMemory int64           // not allocated and not on the free list
}

// NewBufferPool returns a pool of memory bytes with batch-size buffers pooled; it registers
// bufferpool-wait-ratio in metricGrp.
func NewBufferPool(memory int64, poolableSize int, m *metrics.Metrics, t common.Time, metricGrp string) *BufferPool {
	p := &BufferPool{totalMemory: memory, poolableSize: poolableSize, time: t, availableMemory: memory}
	if m != nil {
		p.waitTime = m.Sensor("bufferpool-wait-time")
		_ = p.waitTime.Add(m.MetricName("bufferpool-wait-ratio", metricGrp, "The fraction of time an appender waits for space allocation.", nil),
			metrics.NewRateIn(time.Nanosecond), nil)
	}
	return p
}

// Allocate returns a buffer of size bytes, waiting up to maxTimeToBlockMs for memory. A size
// above the pool is an error at once; running out of time is Kafka's TimeoutException.
//
// Kafka 0.10.2: BufferPool.allocate.
func (p *BufferPool) Allocate(size int, maxTimeToBlockMs int64) ([]byte, error) {
	if int64(size) > p.totalMemory {
		return nil, fmt.Errorf("%w: Attempt to allocate %d bytes, but there is a hard limit of %d on memory allocations.",
			ErrIllegalArgument, size, p.totalMemory)
	}
	p.mu.Lock()
	if size == p.poolableSize && len(p.free) > 0 {
		b := p.popFirst()
		p.mu.Unlock()
		return b, nil
	}
	freeListSize := int64(len(p.free) * p.poolableSize)
	if p.availableMemory+freeListSize >= int64(size) {
		p.freeUp(size)
		p.availableMemory -= int64(size)
		p.mu.Unlock()
		return make([]byte, size), nil
	}
	// Wait for memory, first in first out.
	accumulated := 0
	var buffer []byte
	more := make(chan struct{}, 1)
	p.waiters = append(p.waiters, more)
	remaining := clients.MillisToDuration(maxTimeToBlockMs)
	for accumulated < size {
		p.mu.Unlock()
		start := p.time.Nanoseconds()
		timer := time.NewTimer(remaining)
		var elapsed bool
		select {
		case <-more:
		case <-timer.C:
			elapsed = true
		}
		timer.Stop()
		waited := max(p.time.Nanoseconds()-start, 0)
		if p.waitTime != nil {
			_ = p.waitTime.RecordValue(float64(waited))
		}
		p.mu.Lock()
		if elapsed {
			select {
			case <-more: // signalled just as we gave up: pass the signal on
				p.removeWaiter(more)
				p.signalFirst()
			default:
				p.removeWaiter(more)
			}
			p.availableMemory += int64(accumulated) // give back what we collected
			if len(p.waiters) > 0 {
				p.signalFirst()
			}
			p.mu.Unlock()
			return nil, protocol.Errorf(protocol.ErrRequestTimedOut, "Failed to allocate memory within the configured max blocking time %d ms.", maxTimeToBlockMs)
		}
		remaining -= time.Duration(waited)
		if accumulated == 0 && size == p.poolableSize && len(p.free) > 0 {
			buffer = p.popFirst()
			accumulated = size
		} else {
			p.freeUp(size - accumulated)
			got := min(int64(size-accumulated), p.availableMemory)
			p.availableMemory -= got
			accumulated += int(got)
		}
	}
	p.removeWaiter(more)
	if (p.availableMemory > 0 || len(p.free) > 0) && len(p.waiters) > 0 {
		p.signalFirst()
	}
	p.mu.Unlock()
	if buffer == nil {
		buffer = make([]byte, size)
	}
	return buffer, nil
}

func (p *BufferPool) popFirst() []byte {
	b := p.free[0]
	p.free[0] = nil
	p.free = p.free[1:]
	return b
}

// freeUp moves buffers from the free list back to unallocated memory until size fits.
func (p *BufferPool) freeUp(size int) {
	for len(p.free) > 0 && p.availableMemory < int64(size) {
		last := len(p.free) - 1
		p.availableMemory += int64(cap(p.free[last]))
		p.free[last] = nil
		p.free = p.free[:last]
	}
}

func (p *BufferPool) removeWaiter(c chan struct{}) {
	for i, w := range p.waiters {
		if w == c {
			p.waiters = append(p.waiters[:i:i], p.waiters[i+1:]...)
			return
		}
	}
}

func (p *BufferPool) signalFirst() {
	if len(p.waiters) > 0 {
		select {
		case p.waiters[0] <- struct{}{}:
		default:
		}
	}
}

// Deallocate returns a buffer allocated with size bytes: a batch-size buffer goes back on the
// free list, anything else back to unallocated memory.
//
// Kafka 0.10.2: BufferPool.deallocate(buffer, size).
func (p *BufferPool) Deallocate(buffer []byte, size int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if size == p.poolableSize && cap(buffer) == p.poolableSize {
		p.free = append(p.free, buffer[:size])
	} else {
		p.availableMemory += int64(size)
	}
	p.signalFirst()
}

// AvailableMemory is the unallocated memory plus the free list.
func (p *BufferPool) AvailableMemory() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.availableMemory + int64(len(p.free)*p.poolableSize)
}

// UnallocatedMemory is the memory neither allocated nor on the free list.
func (p *BufferPool) UnallocatedMemory() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.availableMemory
}

// Queued is the number of appenders waiting for memory.
func (p *BufferPool) Queued() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.waiters)
}

// PoolableSize is the size of the buffers kept on the free list.
func (p *BufferPool) PoolableSize() int { return p.poolableSize }

// TotalMemory is buffer.memory.
func (p *BufferPool) TotalMemory() int64 { return p.totalMemory }
