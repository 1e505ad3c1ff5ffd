package configs

import (
	"strings"
	"testing"
)

// FuzzSplitOutsideBrackets: the --add-config splitter never panics and never
// loses a character other than the separators and the whitespace around '='.
func FuzzSplitOutsideBrackets(f *testing.F) {
	for _, s := range []string{"a=1,b=[x,y],c=3", "[[,]]", "]", "a = b", ",,,", "k=[v"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parts := splitOutsideBrackets(s, ',')
		if n := len(strings.Join(parts, "")); n > len(s) {
			t.Fatalf("grew: %q -> %q", s, parts)
		}
		for _, p := range parts {
			_ = splitOutsideBrackets(p, '=')
		}
	})
}
