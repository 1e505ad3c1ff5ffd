package systemtests

import (
	"fmt"
	"sync"
	"time"

	"github.com/IBM/sarama"
)

// cgRecord collects what every member consumed and holds.
type cgRecord struct {
	mu       sync.Mutex
	consumed map[int32]map[int64][]string  // partition -> offset -> members, in order
	at       map[int32]map[int64]time.Time // partition -> offset -> first read
	byMember map[string]int
	assigned map[string][]int32
	keys     map[int32]map[int64]string // acknowledged keys
	badKeys  []string
}

func newCGRecord() *cgRecord {
	return &cgRecord{consumed: map[int32]map[int64][]string{}, at: map[int32]map[int64]time.Time{}, byMember: map[string]int{}, assigned: map[string][]int32{}, keys: map[int32]map[int64]string{}}
}

func (r *cgRecord) ack(p int32, off int64, key string) {
	r.mu.Lock()
	if r.keys[p] == nil {
		r.keys[p] = map[int64]string{}
	}
	r.keys[p][off] = key
	r.mu.Unlock()
}

func (r *cgRecord) consume(member string, p int32, off int64, key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.consumed[p] == nil {
		r.consumed[p] = map[int64][]string{}
		r.at[p] = map[int64]time.Time{}
	}
	if _, ok := r.at[p][off]; !ok {
		r.at[p][off] = time.Now()
	}
	r.consumed[p][off] = append(r.consumed[p][off], member)
	r.byMember[member]++
	if want, ok := r.keys[p][off]; ok && want != key && len(r.badKeys) < 10 {
		r.badKeys = append(r.badKeys, fmt.Sprintf("[%d]@%d: key %q, produced %q", p, off, key, want))
	}
}

func (r *cgRecord) assign(member string, parts []int32) {
	r.mu.Lock()
	r.assigned[member] = parts
	r.mu.Unlock()
}

func (r *cgRecord) assignment(member string) []int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int32(nil), r.assigned[member]...)
}

func (r *cgRecord) count(member string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byMember[member]
}

// distinct is the number of distinct (partition, offset) consumed.
func (r *cgRecord) distinct() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.consumed {
		n += len(m)
	}
	return n
}

// next is, per partition, the last consumed offset + 1.
func (r *cgRecord) next(parts int32) map[int32]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[int32]int64{}
	for p := int32(0); p < parts; p++ {
		out[p] = 0
		for off := range r.consumed[p] {
			out[p] = max(out[p], off+1)
		}
	}
	return out
}

// duplicates counts the extra reads per first reader and checks there is no gap below want.
func (r *cgRecord) duplicates(want map[int32]int64) (dups map[string]int, total int, missing []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	dups = map[string]int{}
	for p, hw := range want {
		for off := int64(0); off < hw; off++ {
			ms := r.consumed[p][off]
			if len(ms) == 0 {
				if len(missing) < 10 {
					missing = append(missing, fmt.Sprintf("[%d]@%d", p, off))
				}
				continue
			}
			if len(ms) > 1 {
				dups[ms[0]] += len(ms) - 1
				total += len(ms) - 1
			}
		}
	}
	return dups, total, missing
}

// readTwiceBelow lists the messages of parts below floor[p] that were read more than once.
func (r *cgRecord) readTwiceBelow(parts []int32, floor map[int32]int64) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, p := range parts {
		for off, ms := range r.consumed[p] {
			if off < floor[p] && len(ms) > 1 && len(out) < 10 {
				out = append(out, fmt.Sprintf("[%d]@%d by %v", p, off, ms))
			}
		}
	}
	return out
}

// oldestDuplicate is the earliest first read of a message read more than once.
func (r *cgRecord) oldestDuplicate() (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var first time.Time
	for p, m := range r.consumed {
		for off, ms := range m {
			if len(ms) > 1 && (first.IsZero() || r.at[p][off].Before(first)) {
				first = r.at[p][off]
			}
		}
	}
	return first, !first.IsZero()
}

// committedOffsets fetches the group's committed offsets (OffsetFetch v2 at V0_10_2_0, from the
// coordinator) with a fresh admin client.
func committedOffsets(addrs []string, group, topic string, parts int32) (map[int32]int64, error) {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.Metadata.Retry.Max = 2
	cfg.Net.DialTimeout = 3 * time.Second
	admin, err := sarama.NewClusterAdmin(addrs, cfg)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	ps := make([]int32, parts)
	for p := range ps {
		ps[p] = int32(p)
	}
	resp, err := admin.ListConsumerGroupOffsets(group, map[string][]int32{topic: ps})
	if err != nil {
		return nil, err
	}
	if resp.Err != sarama.ErrNoError {
		return nil, resp.Err
	}
	out := map[int32]int64{}
	for _, p := range ps {
		b := resp.GetBlock(topic, p)
		if b == nil {
			return nil, fmt.Errorf("no block for [%s,%d]", topic, p)
		}
		if b.Err != sarama.ErrNoError {
			return nil, fmt.Errorf("[%s,%d]: %w", topic, p, b.Err)
		}
		out[p] = b.Offset
	}
	return out, nil
}

// committedAll reports whether committed is next for every partition, a partition where
// nothing was consumed (next 0) having no committed offset (-1) or 0.
func committedAll(committed, next map[int32]int64) bool {
	for p, n := range next {
		if c := committed[p]; c != n && (n != 0 || c != -1) {
			return false
		}
	}
	return len(committed) == len(next)
}

func sameOffsets(a, b map[int32]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for p, o := range a {
		if b[p] != o {
			return false
		}
	}
	return true
}
