package log

import (
	"strconv"
	"testing"
)

// Ports of Kafka 0.10.2's OffsetMapTest:
//
//	OffsetMapTest.testBasicValidation -> TestSkimpyOffsetMapBasicValidation
//	OffsetMapTest.testClear           -> TestSkimpyOffsetMapClear
//	OffsetMapTest.testGetWhenFull     -> TestSkimpyOffsetMapGetWhenFull

func offsetMapKey(i int64) []byte { return []byte(strconv.FormatInt(i, 10)) }

func newTestOffsetMap(t testing.TB, memory int) *SkimpyOffsetMap {
	t.Helper()
	m, err := NewSkimpyOffsetMap(memory, "MD5")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSkimpyOffsetMapBasicValidation(t *testing.T) {
	for _, items := range []int{10, 100, 1000, 5000} {
		m := newTestOffsetMap(t, int(float64(items)/0.5*24))
		for i := 0; i < items; i++ {
			if err := m.Put(offsetMapKey(int64(i)), int64(i)); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < items; i++ {
			if got := m.Get(offsetMapKey(int64(i))); got != int64(i) {
				t.Fatalf("items=%d key %d: got %d", items, i, got)
			}
		}
		if m.Size() != items || m.LatestOffset() != int64(items-1) {
			t.Fatalf("size %d latest %d", m.Size(), m.LatestOffset())
		}
		// Overwriting keeps the size and updates the offset.
		if err := m.Put(offsetMapKey(0), 99999); err != nil || m.Get(offsetMapKey(0)) != 99999 || m.Size() != items {
			t.Fatalf("overwrite: %v", err)
		}
	}
}

func TestSkimpyOffsetMapClear(t *testing.T) {
	m := newTestOffsetMap(t, 4000)
	for i := int64(0); i < 10; i++ {
		_ = m.Put(offsetMapKey(i), i)
	}
	for i := int64(0); i < 10; i++ {
		if m.Get(offsetMapKey(i)) != i {
			t.Fatalf("key %d", i)
		}
	}
	m.Clear()
	for i := int64(0); i < 10; i++ {
		if m.Get(offsetMapKey(i)) != -1 {
			t.Fatalf("key %d survived Clear", i)
		}
	}
	if m.Size() != 0 || m.LatestOffset() != -1 {
		t.Fatal("Clear did not reset counters")
	}
}

func TestSkimpyOffsetMapGetWhenFull(t *testing.T) {
	m := newTestOffsetMap(t, 4096)
	if m.Slots() != 4096/24 {
		t.Fatalf("slots %d", m.Slots())
	}
	i := int64(37)
	for m.Size() < m.Slots() {
		if err := m.Put(offsetMapKey(i), i); err != nil {
			t.Fatal(err)
		}
		i++
	}
	if got := m.Get(offsetMapKey(i)); got != -1 {
		t.Fatalf("absent key in full map: %d", got)
	}
	if got := m.Get(offsetMapKey(i - 1)); got != i-1 {
		t.Fatalf("present key in full map: %d", got)
	}
	if err := m.Put(offsetMapKey(i), i); err != ErrOffsetMapFull {
		t.Fatalf("put into full map: %v", err)
	}
	if m.Utilization() != 1 {
		t.Fatalf("utilization %v", m.Utilization())
	}
}

func BenchmarkSkimpyOffsetMapPut(b *testing.B) {
	m := newTestOffsetMap(b, 24*1<<20)
	keys := make([][]byte, 1<<19)
	for i := range keys {
		keys[i] = offsetMapKey(int64(i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%len(keys) == 0 {
			m.Clear()
		}
		_ = m.Put(keys[i%len(keys)], int64(i))
	}
}
