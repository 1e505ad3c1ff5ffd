package log

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"

	"github.com/zkafka/zkafka/clients/common"
)

// OffsetMap maps message keys to the latest offset seen for them; the cleaner fills it from
// the dirty section of a log and then drops every older message with the same key.
//
// Kafka 0.10.2: kafka.log.OffsetMap
type OffsetMap interface {
	// Slots is the capacity in entries.
	Slots() int
	// Put records offset as the latest offset of key. Putting into a full map is an error.
	Put(key []byte, offset int64) error
	// Get returns the offset stored for key, or -1.
	Get(key []byte) int64
	// Clear empties the map.
	Clear()
	// Size is the number of distinct keys stored.
	Size() int
	// Utilization is Size / Slots.
	Utilization() float64
	// LatestOffset is the offset of the last Put, or -1 after Clear.
	LatestOffset() int64
}

// ErrOffsetMapFull is returned by Put on a map with no free slot.
var ErrOffsetMapFull = errors.New("attempt to add a new entry to a full offset map")

// SkimpyOffsetMap is an open-addressing hash table in one byte slice: each slot holds the
// hash of a key (not the key: 16 bytes of MD5 by default) and an 8-byte big-endian offset.
// Two keys with the same hash are treated as one key; with MD5 the chance is negligible
// and the saving (24 bytes per key whatever the key size) is what lets one cleaner pass
// cover millions of keys.
//
// Kafka 0.10.2: kafka.log.SkimpyOffsetMap. The probe sequence is Kafka's: attempt i reads
// the 4-byte big-endian integer at hash[min(i, hashSize-4)], adds max(0, i-hashSize+4), and
// takes abs(...) modulo the slot count, so the table's layout for a given key set is the
// same as Kafka's. An all-zero slot means "empty". Not safe for concurrent use.
type SkimpyOffsetMap struct {
	buf           []byte
	digest        hash.Hash
	hashSize      int
	bytesPerEntry int
	slots         int
	entries       int
	lastOffset    int64
	lookups       int64
	probes        int64
	h1            []byte
}

// NewSkimpyOffsetMap allocates memory bytes for the table. hashAlgorithm is a Java
// MessageDigest name: "MD5" (Kafka's default), "SHA-1" or "SHA-256".
func NewSkimpyOffsetMap(memory int, hashAlgorithm string) (*SkimpyOffsetMap, error) {
	var newHash func() hash.Hash
	switch hashAlgorithm {
	case "", "MD5":
		newHash = md5.New
	case "SHA-1", "SHA1":
		newHash = sha1.New
	case "SHA-256":
		newHash = sha256.New
	default:
		return nil, fmt.Errorf("%w: unsupported hash algorithm %q", ErrConfig, hashAlgorithm)
	}
	if memory < 0 {
		return nil, fmt.Errorf("%w: negative offset map memory %d", ErrIllegalArgument, memory)
	}
	size := newHash().Size()
	m := &SkimpyOffsetMap{
		buf:           make([]byte, memory),
		digest:        newHash(),
		hashSize:      size,
		bytesPerEntry: size + 8,
		lastOffset:    -1,
		h1:            make([]byte, 0, size),
	}
	m.slots = memory / m.bytesPerEntry
	return m, nil
}

// Slots implements OffsetMap.
func (m *SkimpyOffsetMap) Slots() int { return m.slots }

// Size implements OffsetMap.
func (m *SkimpyOffsetMap) Size() int { return m.entries }

// Utilization implements OffsetMap.
func (m *SkimpyOffsetMap) Utilization() float64 {
	if m.slots == 0 {
		return 0
	}
	return float64(m.entries) / float64(m.slots)
}

// LatestOffset implements OffsetMap.
func (m *SkimpyOffsetMap) LatestOffset() int64 { return m.lastOffset }

// BytesPerEntry is the hash size plus 8.
func (m *SkimpyOffsetMap) BytesPerEntry() int { return m.bytesPerEntry }

// CollisionRate is the average number of extra probes per lookup.
func (m *SkimpyOffsetMap) CollisionRate() float64 {
	if m.lookups == 0 {
		return 0
	}
	return float64(m.probes-m.lookups) / float64(m.lookups)
}

// Put implements OffsetMap.
func (m *SkimpyOffsetMap) Put(key []byte, offset int64) error {
	if m.entries >= m.slots {
		return ErrOffsetMapFull
	}
	m.lookups++
	hash := m.hashInto(key)
	for attempt := 0; ; attempt++ {
		pos := m.positionOf(hash, attempt)
		if m.isEmpty(pos) {
			copy(m.buf[pos:], hash)
			binary.BigEndian.PutUint64(m.buf[pos+m.hashSize:], uint64(offset))
			m.lastOffset = offset
			m.entries++
			return nil
		}
		if bytes.Equal(m.buf[pos:pos+m.hashSize], hash) {
			binary.BigEndian.PutUint64(m.buf[pos+m.hashSize:], uint64(offset))
			m.lastOffset = offset
			return nil
		}
	}
}

// Get implements OffsetMap.
func (m *SkimpyOffsetMap) Get(key []byte) int64 {
	if m.slots == 0 {
		return -1
	}
	m.lookups++
	hash := m.hashInto(key)
	maxAttempts := m.slots + m.hashSize - 4
	for attempt := 0; attempt < maxAttempts; attempt++ {
		pos := m.positionOf(hash, attempt)
		if m.isEmpty(pos) {
			return -1
		}
		if bytes.Equal(m.buf[pos:pos+m.hashSize], hash) {
			return int64(binary.BigEndian.Uint64(m.buf[pos+m.hashSize:]))
		}
	}
	return -1
}

// Clear implements OffsetMap.
func (m *SkimpyOffsetMap) Clear() {
	m.entries = 0
	m.lookups = 0
	m.probes = 0
	m.lastOffset = -1
	clear(m.buf)
}

func (m *SkimpyOffsetMap) isEmpty(pos int) bool {
	for _, b := range m.buf[pos : pos+m.bytesPerEntry] {
		if b != 0 {
			return false
		}
	}
	return true
}

func (m *SkimpyOffsetMap) positionOf(hash []byte, attempt int) int {
	at := min(attempt, m.hashSize-4)
	probe := int32(binary.BigEndian.Uint32(hash[at:])) + int32(max(0, attempt-m.hashSize+4))
	slot := int(common.Abs(probe)) % m.slots
	m.probes++
	return slot * m.bytesPerEntry
}

func (m *SkimpyOffsetMap) hashInto(key []byte) []byte {
	m.digest.Reset()
	m.digest.Write(key)
	m.h1 = m.digest.Sum(m.h1[:0])
	return m.h1
}
