package oldproducer

import "testing"

// TestPartitionersMatchJava: golden values computed with Java 17 (java.util.Arrays.hashCode,
// String.hashCode, Utils.abs, % n) for the keys below.
func TestPartitionersMatchJava(t *testing.T) {
	for _, tc := range []struct {
		key     []byte
		hash    int32
		p3, p12 int
	}{
		{[]byte("key0"), 4212018, 0, 6},
		{[]byte("a"), 128, 2, 8},
		{[]byte{}, 1, 1, 1},
		{[]byte{0xff, 0x80, 0x01}, 24863, 2, 11},
		{[]byte("hello world"), 1923188771, 2, 11},
		{[]byte("k123456"), -627968147, 2, 11},
	} {
		if h := ArraysHashCode(tc.key); h != tc.hash {
			t.Errorf("Arrays.hashCode(%q) = %d, Java says %d", tc.key, h, tc.hash)
		}
		for _, p := range []Partitioner{ByteArrayPartitioner{}, DefaultPartitioner{}} {
			if got := p.Partition(tc.key, 3); got != tc.p3 {
				t.Errorf("%T(%q, 3) = %d, want %d", p, tc.key, got, tc.p3)
			}
			if got := p.Partition(tc.key, 12); got != tc.p12 {
				t.Errorf("%T(%q, 12) = %d, want %d", p, tc.key, got, tc.p12)
			}
		}
	}
	for _, tc := range []struct {
		key     string
		p3, p12 int
	}{{"key0", 2, 5}, {"a", 1, 1}, {"hello world", 2, 8}} {
		if got := (DefaultPartitioner{}).Partition(tc.key, 3); got != tc.p3 {
			t.Errorf("String key %q over 3: %d, want %d", tc.key, got, tc.p3)
		}
		if got := (DefaultPartitioner{}).Partition(tc.key, 12); got != tc.p12 {
			t.Errorf("String key %q over 12: %d, want %d", tc.key, got, tc.p12)
		}
	}
	if (ByteArrayPartitioner{}).Partition("not bytes", 3) != -1 {
		t.Error("a non-byte key must be refused")
	}
	if JavaHashCode(int64(1)<<32|5) != 4 || JavaHashCode(true) != 1231 {
		t.Error("Long/Boolean hashCode")
	}
}
