package admin

import (
	"testing"
)

// FuzzParseReplicaAssignment: the --replica-assignment parsers never panic and
// every accepted assignment is well formed.
func FuzzParseReplicaAssignment(f *testing.F) {
	for _, s := range []string{"0:1,1:2,2:0", "0", "", ",", ":", "0:0", "1:2,3", " 1 : 2 ", "a:b", "0:1,,2:3"} {
		f.Add(s, int32(0))
		f.Add(s, int32(2))
	}
	f.Fuzz(func(t *testing.T, s string, start int32) {
		if a, err := ParseReplicaAssignment(s); err == nil {
			checkWellFormed(t, a)
		}
		if start < 0 || start > 1000 {
			return
		}
		if a, err := GetManualReplicaAssignment(s, []int32{0, 1, 2}, start, true); err == nil {
			checkWellFormed(t, a)
		}
	})
}

func checkWellFormed(t *testing.T, a map[int32][]int32) {
	size := -1
	for p, r := range a {
		if len(duplicates(r)) > 0 {
			t.Fatalf("partition %d has duplicates %v", p, r)
		}
		if size >= 0 && len(r) != size {
			t.Fatalf("uneven replication factor in %v", a)
		}
		size = len(r)
	}
}

// FuzzValidateTopic: the name check never panics and accepts only legal names.
func FuzzValidateTopic(f *testing.F) {
	for _, s := range []string{"", ".", "..", "foo", "a b", "é", "__consumer_offsets"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ValidateTopic(s) == nil {
			if len(s) == 0 || len(s) > 249 || s == "." || s == ".." || !legalTopicChars.MatchString(s) || legalTopicChars.FindString(s) != s {
				t.Fatalf("accepted %q", s)
			}
		}
	})
}
