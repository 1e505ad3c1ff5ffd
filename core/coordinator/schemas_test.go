package coordinator

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.NewReplacer(" ", "", "|", "", "\n", "", "\t", "").Replace(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPartitionForVectors(t *testing.T) {
	// docs/formats.md §5.1 (count 50).
	cases := map[string]int32{"my-group": 12, "test": 48, "console-consumer-12345": 6, "polygenelubricants": 0,
		"": 0, "group-é": 33, "g😀": 32}
	for g, want := range cases {
		if got := PartitionFor(g, 50); got != want {
			t.Errorf("PartitionFor(%q) = %d, want %d", g, got, want)
		}
	}
}

func TestKeyValueGoldenBytes(t *testing.T) {
	// Offset commit key v1, group "g", topic "t", partition 0 (the spec's example).
	key := OffsetCommitKey("g", common.TopicPartition{Topic: "t", Partition: 0})
	if want := unhex(t, "0001 | 0001 67 | 0001 74 | 00000000"); !bytes.Equal(key, want) {
		t.Errorf("offset key % x, want % x", key, want)
	}
	if got := GroupMetadataKey("g"); !bytes.Equal(got, unhex(t, "0002 | 0001 67")) {
		t.Errorf("group key % x", got)
	}
	// Offset value v1: offset 5, metadata "m", commit 0x10, expire 0x20.
	val := OffsetCommitValue(OffsetAndMetadata{Offset: 5, Metadata: "m", CommitTimestamp: 0x10, ExpireTimestamp: 0x20})
	if want := unhex(t, "0001 | 0000000000000005 | 0001 6d | 0000000000000010 | 0000000000000020"); !bytes.Equal(val, want) {
		t.Errorf("offset value % x, want % x", val, want)
	}
	// Group value v1 with one member.
	g := NewGroupMetadata("g")
	m := NewMemberMetadata("m1", "g", "c", "/h", 0x3000, 0x2000, "consumer", []Protocol{{Name: "range", Metadata: []byte{0xaa}}})
	g.Add(m)
	g.generationID, g.protocol = 1, "range"
	v1 := mustGroupValue(t, g, map[string][]byte{"m1": {0xbb}}, 1)
	want := unhex(t, `0001 | 0008 636f6e73756d6572 | 00000001 | 0005 72616e6765 | 0002 6d31 | 00000001
		0002 6d31 | 0001 63 | 0002 2f68 | 00003000 | 00002000 | 00000001 aa | 00000001 bb`)
	if !bytes.Equal(v1, want) {
		t.Errorf("group value v1\n got % x\nwant % x", v1, want)
	}
	v0 := mustGroupValue(t, g, map[string][]byte{"m1": {0xbb}}, 0)
	want0 := unhex(t, `0000 | 0008 636f6e73756d6572 | 00000001 | 0005 72616e6765 | 0002 6d31 | 00000001
		0002 6d31 | 0001 63 | 0002 2f68 | 00002000 | 00000001 aa | 00000001 bb`)
	if !bytes.Equal(v0, want0) {
		t.Errorf("group value v0\n got % x\nwant % x", v0, want0)
	}
	// Empty group: protocol and leader null, no members; the protocol type stays.
	g.Remove("m1")
	g.protocol = ""
	empty := mustGroupValue(t, g, nil, 1)
	if want := unhex(t, "0001 | 0008 636f6e73756d6572 | 00000001 | ffff | ffff | 00000000"); !bytes.Equal(empty, want) {
		t.Errorf("empty group value % x", empty)
	}
}

func TestReadKeysAndValues(t *testing.T) {
	k, err := ReadMessageKey(unhex(t, "0000 0001 67 0001 74 00000003"))
	if err != nil || k.(OffsetKey) != (OffsetKey{0, "g", common.TopicPartition{Topic: "t", Partition: 3}}) {
		t.Fatalf("v0 key: %v %v", k, err)
	}
	if _, err := ReadMessageKey(unhex(t, "0003 0001 67")); err == nil {
		t.Fatal("key version 3 accepted")
	}
	o, err := ReadOffsetMessageValue(unhex(t, "0000 0000000000000007 0000 0000000000000064"))
	if err != nil || *o != (OffsetAndMetadata{7, "", 100, DefaultTimestamp}) {
		t.Fatalf("v0 value: %+v %v", o, err)
	}
	if o, err := ReadOffsetMessageValue(nil); o != nil || err != nil {
		t.Fatal("tombstone")
	}
	// v0 group value: rebalance timeout = session timeout; Stable with members.
	g, err := ReadGroupMessageValue("g", unhex(t, `0000 0008 636f6e73756d6572 00000004 0005 72616e6765 0002 6d31 00000001
		0002 6d31 0001 63 0002 2f68 00002000 00000001 aa 00000001 bb`))
	if err != nil || g.state != Stable || g.generationID != 4 || g.leaderID != "m1" || g.protocol != "range" {
		t.Fatalf("group: %v %v", g, err)
	}
	m := g.Get("m1")
	if m.RebalanceTimeoutMs != 0x2000 || !bytes.Equal(m.Metadata("range"), []byte{0xaa}) || !bytes.Equal(m.Assignment, []byte{0xbb}) {
		t.Fatalf("member %+v", m)
	}
	for _, bad := range []string{"", "00", "0001 0008 63", "0001 0000 00000001 ffff ffff 7fffffff", "0009"} {
		if _, err := ReadGroupMessageValue("g", unhex(t, bad)); err == nil {
			t.Errorf("bad group value %q accepted", bad)
		}
	}
}

func TestFormatOffsetsMessage(t *testing.T) {
	k, v, ok, err := FormatOffsetsMessage(OffsetCommitKey("g", tp("t", 2)), OffsetCommitValue(OffsetAndMetadata{Offset: 42, Metadata: "md"}))
	if err != nil || !ok || k != "offset::g:t:2" || v != "42:md" {
		t.Errorf("offset: %q %q %v %v", k, v, ok, err)
	}
	k, v, _, _ = FormatOffsetsMessage(OffsetCommitKey("g", tp("t", 2)), OffsetCommitValue(OffsetAndMetadata{Offset: 42}))
	if v != "42" {
		t.Errorf("no metadata: %q", v)
	}
	if _, _, ok, err := FormatOffsetsMessage(OffsetCommitKey("g", tp("t", 2)), nil); ok || err != nil {
		t.Error("tombstone prints")
	}
	g := NewGroupMetadata("grp")
	a := (&protocol.ConsumerProtocolAssignment{Partitions: []common.TopicPartition{tp("t", 0), tp("t", 1)}, UserData: []byte{}}).AppendTo(nil)
	g.Add(NewMemberMetadata("m1", "grp", "c", "/h", 1, 1, "consumer", []Protocol{{Name: "range", Metadata: []byte{1}}}))
	g.generationID, g.protocol = 3, "range"
	k, v, _, err = FormatOffsetsMessage(GroupMetadataKey("grp"), mustGroupValue(t, g, map[string][]byte{"m1": a}, 1))
	if err != nil || k != "metadata::grp" || v != "consumer:range:3:{m1=[t-0, t-1]}" {
		t.Errorf("group: %q %q %v", k, v, err)
	}
	if _, _, _, err := FormatOffsetsMessage(nil, []byte{0}); err == nil {
		t.Error("missing key accepted")
	}
}

func FuzzReadGroupMessageValue(f *testing.F) {
	g := NewGroupMetadata("g")
	g.Add(NewMemberMetadata("m1", "g", "c", "/h", 1, 1, "consumer", []Protocol{{Name: "range", Metadata: []byte{1}}}))
	g.protocol = "range"
	f.Add(mustGroupValue(f, g, nil, 1))
	f.Add(OffsetCommitValue(OffsetAndMetadata{Offset: 1}))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ReadGroupMessageValue("g", b)
		_, _ = ReadOffsetMessageValue(b)
		_, _ = ReadMessageKey(b)
		_, _, _, _ = FormatOffsetsMessage(b, b)
	})
}

func mustGroupValue(t testing.TB, g *GroupMetadata, assignment map[string][]byte, version int16) []byte {
	t.Helper()
	b, err := GroupMetadataValue(g, assignment, version)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGroupValueTooLong(t *testing.T) {
	h := newHarness(t)
	long := strings.Repeat("c", 32767) // the longest client id the wire allows
	var res JoinGroupResult
	h.c.HandleJoinGroup(testGroup, "", long, "/h", testRebalance, testSession, "consumer", rangeProto, func(r JoinGroupResult) { res = r })
	if res.ErrorCode != 0 {
		t.Fatalf("join: %s", codeName(res.ErrorCode))
	}
	// The member id (client id + "-" + UUID) no longer fits a STRING: the leader's SyncGroup
	// fails instead of the broker.
	s := h.sync(testGroup, res.GenerationID, res.MemberID, map[string][]byte{res.MemberID: testAssignment}).get(t)
	if s.code != protocol.ErrUnknown.Code {
		t.Fatalf("sync: %s", codeName(s.code))
	}
}
