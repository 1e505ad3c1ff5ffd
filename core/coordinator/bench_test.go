package coordinator

import (
	"testing"

	"github.com/zkafka/zkafka/clients/common"
)

// BenchmarkCommitOffsets: one OffsetCommit of 10 partitions by a group member, appended to a
// real log (no replication wait) and made visible.
func BenchmarkCommitOffsets(b *testing.B) {
	h := newHarness(b)
	r := h.join(testGroup, "", rangeProto)
	res := <-r.ch
	s := h.sync(testGroup, res.GenerationID, res.MemberID, map[string][]byte{res.MemberID: testAssignment})
	<-s.ch
	offsets := map[common.TopicPartition]OffsetAndMetadata{}
	for p := int32(0); p < 10; p++ {
		offsets[tp("t", p)] = OffsetAndMetadata{Offset: 1, ExpireTimestamp: 1 << 40}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.c.HandleCommitOffsets(testGroup, res.MemberID, res.GenerationID, offsets, func(m map[common.TopicPartition]int16) {
			if m[tp("t", 0)] != 0 {
				b.Fatal(m)
			}
		})
	}
}

// BenchmarkHeartbeat: a Stable member's heartbeat (a purgatory check and a new timer entry).
func BenchmarkHeartbeat(b *testing.B) {
	h := newHarness(b)
	res := <-h.join(testGroup, "", rangeProto).ch
	<-h.sync(testGroup, res.GenerationID, res.MemberID, map[string][]byte{res.MemberID: testAssignment}).ch
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.advance(1) // 1 ms: each heartbeat is newer than the last
		h.c.HandleHeartbeat(testGroup, res.MemberID, res.GenerationID, func(code int16) {
			if code != 0 {
				b.Fatal(code)
			}
		})
	}
}
