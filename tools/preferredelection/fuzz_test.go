package preferredelection

import (
	"testing"

	"github.com/zkafka/zkafka/clients/common"
)

// FuzzParsePreferredReplicaElectionData: any file content gives a list without
// duplicates or an error, never a panic.
func FuzzParsePreferredReplicaElectionData(f *testing.F) {
	for _, s := range []string{`{"partitions":[{"topic":"foo","partition":1}]}`, `{}`, `[]`, `{"partitions":null}`,
		`{"partitions":[{"topic":1}]}`, `{"partitions":[{}]}`, `nonsense`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		list, err := ParsePreferredReplicaElectionData(data)
		if err != nil {
			return
		}
		seen := map[common.TopicPartition]bool{}
		for _, tp := range list {
			if seen[tp] {
				t.Fatalf("duplicate %v", tp)
			}
			seen[tp] = true
		}
	})
}
