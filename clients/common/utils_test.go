package common

import (
	"testing"
	"time"
)

func TestJavaStringHashCode(t *testing.T) {
	// Values computed by java.lang.String.hashCode.
	cases := map[string]int32{"": 0, "a": 97, "test-group": 627841412, "console-consumer-12345": 158455506, "\U0001F600x": 54959989} // checked with java String.hashCode
	for s, want := range cases {
		if got := JavaStringHashCode(s); got != want {
			t.Errorf("hash(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestAbs(t *testing.T) {
	if Abs(-2147483648) != 0 || Abs(-5) != 5 || Abs(7) != 7 {
		t.Fatal("Abs mismatch")
	}
}

func TestMockTime(t *testing.T) {
	mt := NewMockTime(1000)
	mt.Sleep(1500 * time.Millisecond)
	if mt.Milliseconds() != 2500 {
		t.Fatalf("got %d", mt.Milliseconds())
	}
	if (TopicPartition{"t", 3}).String() != "t-3" {
		t.Fatal("TopicPartition.String")
	}
}
