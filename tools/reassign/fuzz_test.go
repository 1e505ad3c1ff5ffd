package reassign

import "testing"

// FuzzParseTopicsData: any --topics-to-move-json-file content gives a list or
// nothing, never a panic.
func FuzzParseTopicsData(f *testing.F) {
	for _, s := range []string{`{"topics":[{"topic":"foo"}],"version":1}`, `{"topics":[{}]}`, `{"topics":7}`, `x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, topic := range ParseTopicsData(data) {
			_ = topic
		}
	})
}
