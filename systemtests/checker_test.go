package systemtests

import (
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
)

// The checker itself, without a broker: each class of problem is detected and only duplicates
// are tolerated.
func TestChecker(t *testing.T) {
	tp := common.TopicPartition{Topic: "t", Partition: 0}
	msg := func(i int) ([]byte, []byte) { return MessageFor(i, 20) }
	base := func() *Checker {
		c := NewChecker()
		for i := 0; i < 5; i++ {
			k, v := msg(i)
			c.Sent(k, v)
			c.Acked(tp, int64(i), k, v)
		}
		return c
	}
	consumeAll := func(c *Checker, skip int) {
		for i := 0; i < 5; i++ {
			if i == skip {
				continue
			}
			k, v := msg(i)
			c.Consumed(tp, int64(i), k, v)
		}
		c.HighWatermark(tp, 5)
	}
	tests := []struct {
		name  string
		setup func(c *Checker)
		ok    bool
		want  string
	}{
		{"all present", func(c *Checker) { consumeAll(c, -1) }, true, "consumed 5, duplicates 0"},
		{"acked message lost", func(c *Checker) { consumeAll(c, 3) }, false, "MISSING 1: t-0@3"},
		{"wrong content at offset", func(c *Checker) {
			consumeAll(c, 2)
			k, v := msg(4)
			c.Consumed(tp, 2, k, v)
		}, false, "MISMATCHED 1: t-0@2"},
		{"offset acknowledged twice", func(c *Checker) {
			k, v := msg(9)
			c.Sent(k, v)
			c.Acked(tp, 3, k, v) // a second message acknowledged where message 3 was
			consumeAll(c, 3)
			c.Consumed(tp, 3, k, v)
		}, false, "ACKNOWLEDGED TWICE 1: t-0@3"},
		{"gap below high watermark", func(c *Checker) {
			consumeAll(c, -1)
			c.HighWatermark(tp, 7)
		}, false, "GAPS 2: t-0@5, t-0@6"},
		{"never sent", func(c *Checker) {
			consumeAll(c, -1)
			c.Consumed(tp, 5, []byte("x"), []byte("y"))
			c.HighWatermark(tp, 6)
		}, false, "UNSENT 1: t-0@5"},
		{"retried send duplicated", func(c *Checker) {
			consumeAll(c, -1)
			k, v := msg(4)
			c.Consumed(tp, 5, k, v) // sent twice, acknowledged once at 4
			c.HighWatermark(tp, 6)
		}, true, "duplicates 1"},
		{"two messages acknowledged at one offset", func(c *Checker) {
			k, v := msg(7) // a zombie leader acknowledged message 7 at offset 3 too
			c.Sent(k, v)
			c.Acked(tp, 3, k, v)
			consumeAll(c, -1)
		}, false, "ACKNOWLEDGED TWICE 1: t-0@3"},
		{"unacked but sent message consumed", func(c *Checker) {
			consumeAll(c, -1)
			k, v := msg(9)
			c.Sent(k, v)
			c.Consumed(tp, 5, k, v)
			c.HighWatermark(tp, 6)
		}, true, "consumed 6, duplicates 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := base()
			tc.setup(c)
			r := c.Check()
			if r.OK() != tc.ok || !strings.Contains(r.String(), tc.want) {
				t.Fatalf("report %q (ok=%v), want ok=%v containing %q", r, r.OK(), tc.ok, tc.want)
			}
		})
	}
}

func TestMessageForIsKcatSafe(t *testing.T) {
	for _, i := range []int{0, 7, 999999} {
		k, v := MessageFor(i, 100)
		if len(v) != 100 || strings.ContainsAny(string(k)+string(v), "\t\n") {
			t.Fatalf("message %d: key %q value %q", i, k, v)
		}
		if err := ExpectMessage(ConsumedMessage{Key: k, Value: v}, i, 100); err != nil {
			t.Fatal(err)
		}
		if err := ExpectMessage(ConsumedMessage{Key: k, Value: v}, i+1, 100); err == nil {
			t.Fatalf("message %d accepted as %d", i, i+1)
		}
	}
}
