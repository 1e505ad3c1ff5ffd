package systemtests

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/zkafka/zkafka/clients/common"
)

// Checker compares what a producer was told was written (acknowledged offsets) with what a
// consumer later reads, the validation of kafkatest's ProduceConsumeValidateTest, made
// offset-exact:
//
//   - every acknowledged message is present, at its acknowledged offset, with its key and value;
//   - below each partition's high watermark there is no gap in the consumed offsets (from the
//     first consumed offset);
//   - nothing is consumed that was never sent (Sent records every attempt, acknowledged or not);
//   - a message consumed at more than one offset is a duplicate (a retried send): counted and
//     reported, not a failure;
//   - two different messages acknowledged at the same offset of a partition (two leaders, e.g.
//     a zombie and its successor, both acknowledged a write there): at most one can be in the
//     log, so the other was lost.
//
// It is safe for concurrent use (a producer's success goroutine and a consumer may feed it).
type Checker struct {
	mu       sync.Mutex
	sent     map[string]struct{}
	acked    map[common.TopicPartition]map[int64]string
	consumed map[common.TopicPartition]map[int64]string
	hw       map[common.TopicPartition]int64
	// overwritten are offsets acknowledged for two different messages, one entry per extra ack.
	overwritten []string
}

// NewChecker returns an empty checker.
func NewChecker() *Checker {
	return &Checker{
		sent:     map[string]struct{}{},
		acked:    map[common.TopicPartition]map[int64]string{},
		consumed: map[common.TopicPartition]map[int64]string{},
		hw:       map[common.TopicPartition]int64{},
	}
}

func msgKey(key, value []byte) string {
	return fmt.Sprintf("%d:%s%s", len(key), key, value)
}

// Sent records a send attempt (before its outcome is known).
func (c *Checker) Sent(key, value []byte) {
	c.mu.Lock()
	c.sent[msgKey(key, value)] = struct{}{}
	c.mu.Unlock()
}

// Acked records an acknowledgement: the message was written at offset.
func (c *Checker) Acked(tp common.TopicPartition, offset int64, key, value []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.acked[tp]
	if m == nil {
		m = map[int64]string{}
		c.acked[tp] = m
	}
	k := msgKey(key, value)
	if prev, ok := m[offset]; ok && prev != k {
		c.overwritten = append(c.overwritten, fmt.Sprintf("%s@%d", tp, offset))
	}
	m[offset] = k
}

// Consumed records a message read at offset.
func (c *Checker) Consumed(tp common.TopicPartition, offset int64, key, value []byte) {
	c.mu.Lock()
	m := c.consumed[tp]
	if m == nil {
		m = map[int64]string{}
		c.consumed[tp] = m
	}
	m[offset] = msgKey(key, value)
	c.mu.Unlock()
}

// HighWatermark records a partition's high watermark at the end of consumption.
func (c *Checker) HighWatermark(tp common.TopicPartition, hw int64) {
	c.mu.Lock()
	c.hw[tp] = hw
	c.mu.Unlock()
}

// CheckReport is the outcome of Check.
type CheckReport struct {
	Sent, Acked, Consumed int
	// Missing are acknowledged messages not consumed at their offset; Mismatched were consumed
	// at the offset with other content.
	Missing, Mismatched []string
	// Gaps are offsets below the high watermark that were not consumed.
	Gaps []string
	// Unsent are consumed messages that were never sent.
	Unsent []string
	// Overwritten are offsets at which two different messages were acknowledged: one of the
	// two acknowledged messages is lost.
	Overwritten []string
	// Duplicates counts messages consumed at more than one offset.
	Duplicates int
}

// OK reports whether no acknowledged message was lost or changed, there is no gap, and nothing
// unsent appeared. Duplicates do not fail the check.
func (r CheckReport) OK() bool {
	return len(r.Missing) == 0 && len(r.Mismatched) == 0 && len(r.Gaps) == 0 && len(r.Unsent) == 0 && len(r.Overwritten) == 0
}

// Lost counts the acknowledged messages that are not in the log: missing, replaced by other
// content, or acknowledged at an offset another acknowledged message also claims.
func (r CheckReport) Lost() int { return len(r.Missing) + len(r.Mismatched) + len(r.Overwritten) }

func firstFew(s []string) string {
	if len(s) > 5 {
		return strings.Join(s[:5], ", ") + fmt.Sprintf(", ... (%d in all)", len(s))
	}
	return strings.Join(s, ", ")
}

// String summarises the report (at most five examples of each problem).
func (r CheckReport) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "sent %d, acked %d, consumed %d, duplicates %d", r.Sent, r.Acked, r.Consumed, r.Duplicates)
	if len(r.Missing) > 0 {
		fmt.Fprintf(&sb, "; MISSING %d: %s", len(r.Missing), firstFew(r.Missing))
	}
	if len(r.Mismatched) > 0 {
		fmt.Fprintf(&sb, "; MISMATCHED %d: %s", len(r.Mismatched), firstFew(r.Mismatched))
	}
	if len(r.Gaps) > 0 {
		fmt.Fprintf(&sb, "; GAPS %d: %s", len(r.Gaps), firstFew(r.Gaps))
	}
	if len(r.Unsent) > 0 {
		fmt.Fprintf(&sb, "; UNSENT %d: %s", len(r.Unsent), firstFew(r.Unsent))
	}
	if len(r.Overwritten) > 0 {
		fmt.Fprintf(&sb, "; ACKNOWLEDGED TWICE %d: %s", len(r.Overwritten), firstFew(r.Overwritten))
	}
	return sb.String()
}

// Check compares acknowledged and consumed messages.
func (c *Checker) Check() CheckReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := CheckReport{Sent: len(c.sent), Overwritten: append([]string(nil), c.overwritten...)}
	tps := make([]common.TopicPartition, 0, len(c.acked)+len(c.consumed))
	seen := map[common.TopicPartition]bool{}
	for tp := range c.acked {
		seen[tp] = true
		tps = append(tps, tp)
	}
	for tp := range c.consumed {
		if !seen[tp] {
			tps = append(tps, tp)
		}
	}
	sort.Slice(tps, func(i, j int) bool {
		if tps[i].Topic != tps[j].Topic {
			return tps[i].Topic < tps[j].Topic
		}
		return tps[i].Partition < tps[j].Partition
	})
	occurrences := map[string]int{}
	for _, tp := range tps {
		acked, consumed := c.acked[tp], c.consumed[tp]
		r.Acked += len(acked)
		r.Consumed += len(consumed)
		offs := make([]int64, 0, len(acked))
		for o := range acked {
			offs = append(offs, o)
		}
		sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
		for _, o := range offs {
			got, ok := consumed[o]
			switch {
			case !ok:
				r.Missing = append(r.Missing, fmt.Sprintf("%s@%d", tp, o))
			case got != acked[o]:
				r.Mismatched = append(r.Mismatched, fmt.Sprintf("%s@%d", tp, o))
			}
		}
		if len(consumed) == 0 {
			continue
		}
		first := int64(-1)
		for o, m := range consumed {
			if first < 0 || o < first {
				first = o
			}
			occurrences[m]++
			if _, ok := c.sent[m]; !ok {
				r.Unsent = append(r.Unsent, fmt.Sprintf("%s@%d", tp, o))
			}
		}
		if hw, ok := c.hw[tp]; ok {
			for o := first; o < hw; o++ {
				if _, ok := consumed[o]; !ok {
					r.Gaps = append(r.Gaps, fmt.Sprintf("%s@%d", tp, o))
				}
			}
		}
	}
	for _, n := range occurrences {
		if n > 1 {
			r.Duplicates += n - 1
		}
	}
	sort.Strings(r.Unsent)
	return r
}
