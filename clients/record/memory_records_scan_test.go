package record

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// scanByIterator is the reference for ScanShallow: the same summary computed with ShallowEntries,
// EnsureValid and a size check, as the broker's analyze pass does over the iterator.
func scanByIterator(m *MemoryRecords, maxEntrySize int) (ShallowScan, bool) {
	s := ShallowScan{FirstOffset: -1, LastOffset: -1, OffsetsMonotonic: true, MaxTimestamp: NoTimestamp,
		OffsetOfMaxTimestamp: -1, Codec: NONE}
	for e, err := range m.ShallowEntries() {
		if err != nil || e.Size() > maxEntrySize || e.Record.EnsureValid() != nil {
			return s, false
		}
		if s.FirstOffset < 0 {
			s.FirstOffset = e.Offset
		}
		if s.LastOffset >= e.Offset {
			s.OffsetsMonotonic = false
		}
		s.LastOffset = e.Offset
		if ts := e.Record.Timestamp(); ts > s.MaxTimestamp {
			s.MaxTimestamp, s.OffsetOfMaxTimestamp = ts, e.Offset
		}
		s.Magics |= 1 << e.Magic()
		if c := e.Record.CompressionType(); c != NONE {
			s.Codec = c
		}
		s.Count++
		s.ValidBytes = e.Position + e.Size()
	}
	return s, true
}

// randomSet concatenates a few sets of random magic, codec and timestamp type, with null and
// non-null keys and values, and sometimes damages the result: a flipped byte, a size, key-size or
// value-size field overwritten, an offset moved back, a truncation, trailing garbage.
func randomSet(t testing.TB, rng *rand.Rand, now int64) []byte {
	var buf []byte
	offset := int64(rng.IntN(1000))
	for range 1 + rng.IntN(4) {
		magic := MagicValueV1
		if rng.IntN(4) == 0 {
			magic = MagicValueV0
		}
		codec := NONE
		if rng.IntN(8) == 0 {
			codec = allCodecs[1+rng.IntN(len(allCodecs)-1)]
		}
		tsType := CreateTime
		if rng.IntN(8) == 0 {
			tsType = LogAppendTime
		}
		b := NewMemoryRecordsBuilder(magic, codec, tsType, offset, now-int64(rng.IntN(100)), 0)
		for range 1 + rng.IntN(6) {
			var key, value []byte
			if rng.IntN(4) != 0 {
				key = make([]byte, rng.IntN(12))
			}
			if rng.IntN(8) != 0 {
				value = make([]byte, rng.IntN(40))
				for i := range value {
					value[i] = byte(rng.IntN(256))
				}
			}
			ts := now + int64(rng.IntN(2001)) - 1000
			if rng.IntN(20) == 0 {
				ts = NoTimestamp
			}
			if _, err := b.AppendWithOffset(offset, ts, key, value); err != nil {
				t.Fatal(err)
			}
			offset += 1 + int64(rng.IntN(2))
		}
		buf = append(buf, b.Build().Bytes()...)
	}
	var starts []int
	for pos := 0; pos+LogOverhead <= len(buf); {
		starts = append(starts, pos)
		pos += LogOverhead + int(int32(binary.BigEndian.Uint32(buf[pos+SizeOffset:])))
	}
	at := starts[rng.IntN(len(starts))]
	switch rng.IntN(10) {
	case 0:
		buf[rng.IntN(len(buf))] ^= byte(1 + rng.IntN(255))
	case 1:
		binary.BigEndian.PutUint32(buf[at+SizeOffset:], uint32(rng.IntN(200)-20))
	case 2: // a key or value size field of a v0 or v1 message (the CRC is fixed up when asked)
		field := at + LogOverhead + KeySizeOffsetV0 + 4*rng.IntN(3)
		if field+4 <= len(buf) {
			binary.BigEndian.PutUint32(buf[field:], uint32(rng.IntN(60)-5))
		}
		if rng.IntN(2) == 0 {
			size := int(int32(binary.BigEndian.Uint32(buf[at+SizeOffset:])))
			if msg := buf[at+LogOverhead:]; size >= CrcLength && size <= len(msg) {
				binary.BigEndian.PutUint32(msg, NewRecordFromBytes(msg[:size]).ComputeChecksum())
			}
		}
	case 3:
		binary.BigEndian.PutUint64(buf[at+OffsetOffset:], uint64(rng.IntN(1000)))
	case 4:
		buf = buf[:rng.IntN(len(buf)+1)]
	case 5:
		for range 1 + rng.IntN(30) {
			buf = append(buf, byte(rng.IntN(256)))
		}
	}
	return buf
}

func TestScanShallowMatchesIterator(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	now := int64(1487000000000)
	accepted, refused := 0, 0
	for i := range 3000 {
		buf := randomSet(t, rng, now)
		maxEntrySize := []int{1 << 30, 60, 100, 200}[rng.IntN(4)]
		m := NewMemoryRecords(buf)
		want, wantOK := scanByIterator(m, maxEntrySize)
		got, gotOK := m.ScanShallow(maxEntrySize)
		if gotOK != wantOK || (gotOK && got != want) {
			t.Fatalf("set %d (%x), max %d: ScanShallow = %+v, %v; iterator = %+v, %v",
				i, buf, maxEntrySize, got, gotOK, want, wantOK)
		}
		// The iterator-based Validate must agree on acceptance and valid bytes.
		vb, err := m.Validate(maxEntrySize)
		if (err == nil) != gotOK || (gotOK && vb != got.ValidBytes) {
			t.Fatalf("set %d: ScanShallow ok=%v valid=%d, Validate %d, %v", i, gotOK, got.ValidBytes, vb, err)
		}
		if gotOK {
			accepted++
		} else {
			refused++
		}
	}
	t.Logf("accepted %d, refused %d", accepted, refused)
	// Both outcomes must be well represented, or the comparison proves little.
	if accepted < 1000 || refused < 300 {
		t.Fatalf("accepted %d, refused %d: the generator does not cover both paths", accepted, refused)
	}
}

func TestWellFormedMatchesCheckStructure(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range 50000 {
		var msg []byte
		if rng.IntN(3) == 0 {
			msg = make([]byte, rng.IntN(40))
			for j := range msg {
				msg[j] = byte(rng.IntN(256))
			}
		} else {
			var err error
			msg, err = BuildRecord(int8(rng.IntN(2)), 5, make([]byte, rng.IntN(5)), make([]byte, rng.IntN(9)), NONE, CreateTime)
			if err != nil {
				t.Fatal(err)
			}
			if rng.IntN(2) == 0 {
				field := KeySizeOffsetV0 + 4*rng.IntN(4)
				if field+4 <= len(msg) {
					binary.BigEndian.PutUint32(msg[field:], uint32(rng.IntN(20)-3))
				}
			}
			if rng.IntN(4) == 0 {
				msg[MagicOffset] = byte(rng.IntN(4))
			}
			if rng.IntN(4) == 0 {
				msg = msg[:rng.IntN(len(msg)+1)]
			}
		}
		if got, want := wellFormed(msg), NewRecordFromBytes(msg).checkStructure() == nil; got != want {
			t.Fatalf("message %d (%x): wellFormed = %v, checkStructure ok = %v", i, msg, got, want)
		}
	}
}

// FuzzScanShallow checks ScanShallow against the iterator walk on arbitrary bytes.
func FuzzScanShallow(f *testing.F) {
	for _, magic := range []int8{0, 1} {
		for _, codec := range allCodecs {
			f.Add(buildSet(f, magic, codec, CreateTime, 7, 1234, sampleKVs(4, 7)).Bytes(), 1<<20)
		}
	}
	f.Add([]byte{}, 100)
	f.Add(make([]byte, 30), 100)
	f.Fuzz(func(t *testing.T, data []byte, maxEntrySize int) {
		if maxEntrySize <= 0 {
			return
		}
		m := NewMemoryRecords(data)
		want, wantOK := scanByIterator(m, maxEntrySize)
		got, gotOK := m.ScanShallow(maxEntrySize)
		if gotOK != wantOK || (gotOK && got != want) {
			t.Fatalf("ScanShallow = %+v, %v; iterator = %+v, %v", got, gotOK, want, wantOK)
		}
	})
}

func BenchmarkScanShallow(b *testing.B) {
	// 16 KiB of 100-byte v1 messages, as the broker's append benchmark uses.
	bld := NewMemoryRecordsBuilder(MagicValueV1, NONE, CreateTime, 0, NoTimestamp, 0)
	value := make([]byte, 100-LogOverhead-RecordOverheadV1)
	for i := range 16 * 1024 / 100 {
		if _, err := bld.AppendWithOffset(int64(i), 1487000000000, nil, value); err != nil {
			b.Fatal(err)
		}
	}
	m := bld.Build()
	b.SetBytes(int64(m.SizeInBytes()))
	b.ReportAllocs()
	for b.Loop() {
		if s, ok := m.ScanShallow(1 << 20); !ok || s.ValidBytes != m.SizeInBytes() {
			b.Fatal(s, ok)
		}
	}
}
