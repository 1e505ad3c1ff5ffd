package zkutils

import (
	"math/bits"
	"sort"
	"strconv"

	"github.com/zkafka/zkafka/clients/common"
)

// Kafka's JSON encoder writes a map in the order the map iterates, and the JVM
// collections Kafka passes it iterate in hash order. To write the same bytes the
// codecs replay the three collections involved:
//
//   - scala.collection.immutable.Map: up to 4 entries keep insertion order (Map1..Map4);
//     from 5 on it is a HashTrieMap, iterated by the 5-bit groups of the improved
//     hash, lowest group first.
//   - scala.collection.mutable.HashMap (Scala 2.11): open hashing over a power-of-two
//     table (16 at first, doubled when size exceeds 3/4), bucket = top bits of
//     byteswap32(hash) rotated by a seed fixed at construction; iterated from the
//     last bucket down, each bucket newest first.
//   - java.util.Hashtable (what java.util.Properties is in Java 8): table of 11,
//     grown to 2n+1 when count reaches 3/4, bucket = (hash & MAX) % n; iterated from
//     the last bucket down, newest first.
//
// Hashes are java.lang.String.hashCode for strings and the value for ints. The
// znode examples of docs/formats.md §1.2 are reproduced byte for byte by these
// rules (see json_test.go).

// scalaImmutableMapOrder gives the iteration order of an immutable Scala Map built
// from keys in this order.
func scalaImmutableMapOrder(keys []string) []string {
	out := append([]string(nil), keys...)
	if len(out) <= 4 {
		return out
	}
	h := make(map[string]uint32, len(out))
	for _, k := range out {
		h[k] = uint32(scalaImproveImmutable(common.JavaStringHashCode(k)))
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := h[out[i]], h[out[j]]
		for shift := 0; shift < 32; shift += 5 {
			x, y := (a>>shift)&31, (b>>shift)&31
			if x != y {
				return x < y
			}
		}
		return false
	})
	return out
}

// scalaImproveImmutable is immutable.HashMap's hash spreading.
func scalaImproveImmutable(hcode int32) int32 {
	h := hcode + ^(hcode << 9)
	h ^= int32(uint32(h) >> 14)
	h += h << 4
	return h ^ int32(uint32(h)>>10)
}

// scalaMutableHashMapOrder gives the iteration order of a mutable.HashMap[String, _]
// filled with keys in this order.
func scalaMutableHashMapOrder(keys []string) []string {
	hashes := make([]int32, len(keys))
	for i, k := range keys {
		hashes[i] = common.JavaStringHashCode(k)
	}
	order := scalaMutableHashMapIndexOrder(hashes)
	out := make([]string, len(order))
	for i, idx := range order {
		out[i] = keys[idx]
	}
	return out
}

// scalaMutableHashMapIntOrder is scalaMutableHashMapOrder for Int keys.
func scalaMutableHashMapIntOrder(keys []int32) []int32 {
	order := scalaMutableHashMapIndexOrder(keys)
	out := make([]int32, len(order))
	for i, idx := range order {
		out[i] = keys[idx]
	}
	return out
}

type hashEntry struct {
	idx  int // position in the insertion sequence
	hash int32
	next *hashEntry
}

// scalaMutableHashMapIndexOrder replays mutable.HashTable over distinct hashes
// (positions in the input) and returns the positions in iteration order.
func scalaMutableHashMapIndexOrder(hashes []int32) []int {
	table := make([]*hashEntry, 16)
	seed := uint(bits.OnesCount32(uint32(len(table) - 1)))
	index := func(h int32, n int) int {
		ones := uint32(n - 1)
		improved := bits.RotateLeft32(uint32(scalaByteswap32(h)), -int(seed%32))
		return int((int32(improved) >> (32 - bits.OnesCount32(ones))) & int32(ones))
	}
	threshold, size := 12, 0
	for i, h := range hashes {
		b := index(h, len(table))
		table[b] = &hashEntry{idx: i, hash: h, next: table[b]}
		size++
		if size > threshold {
			old := table
			table = make([]*hashEntry, 2*len(old))
			for j := len(old) - 1; j >= 0; j-- {
				for e := old[j]; e != nil; {
					next := e.next
					nb := index(e.hash, len(table))
					e.next = table[nb]
					table[nb] = e
					e = next
				}
			}
			threshold = len(table) * 3 / 4
		}
	}
	out := make([]int, 0, len(hashes))
	for j := len(table) - 1; j >= 0; j-- {
		for e := table[j]; e != nil; e = e.next {
			out = append(out, e.idx)
		}
	}
	return out
}

// scalaByteswap32 is scala.util.hashing.byteswap32.
func scalaByteswap32(v int32) int32 {
	hc := uint32(v) * 0x9e3775cd
	hc = bits.ReverseBytes32(hc)
	return int32(hc * 0x9e3775cd)
}

// javaHashtableOrder gives the iteration order of a java.util.Hashtable (and so
// of java.util.Properties, Java 8) filled with keys in this order.
func javaHashtableOrder(keys []string) []string {
	table := make([]*hashEntry, 11)
	count, threshold := 0, 8
	bucket := func(h int32, n int) int { return int(uint32(h)&0x7fffffff) % n }
	for i, k := range keys {
		h := common.JavaStringHashCode(k)
		if count >= threshold {
			old := table
			table = make([]*hashEntry, 2*len(old)+1)
			for j := len(old) - 1; j >= 0; j-- {
				for e := old[j]; e != nil; {
					next := e.next
					nb := bucket(e.hash, len(table))
					e.next = table[nb]
					table[nb] = e
					e = next
				}
			}
			threshold = len(table) * 3 / 4
		}
		b := bucket(h, len(table))
		table[b] = &hashEntry{idx: i, hash: h, next: table[b]}
		count++
	}
	out := make([]string, 0, len(keys))
	for j := len(table) - 1; j >= 0; j-- {
		for e := table[j]; e != nil; e = e.next {
			out = append(out, keys[e.idx])
		}
	}
	return out
}

// partitionKeysInKafkaOrder gives the order of the "partitions" object of
// /brokers/topics/<t>: AdminUtils builds a mutable.HashMap[Int, Seq[Int]] of the
// assignment, maps it to a mutable.HashMap[String, Seq[Int]] and encodes that, so
// the string map is filled in the int map's iteration order. The partition ids
// are first taken in ascending order.
func partitionKeysInKafkaOrder(partitions []int32) []string {
	ids := append([]int32(nil), partitions...)
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	ids = scalaMutableHashMapIntOrder(ids)
	keys := make([]string, len(ids))
	for i, p := range ids {
		keys[i] = strconv.FormatInt(int64(p), 10)
	}
	return scalaMutableHashMapOrder(keys)
}
