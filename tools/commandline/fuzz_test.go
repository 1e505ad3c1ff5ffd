package commandline

import (
	"strings"
	"testing"
)

// FuzzParse: the option parser never panics on any argument list.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"--zookeeper h:1 --describe", "--config=a=b --conf c", "-- --x", "--", "-", "--=", "--delete-config a,,b", "--d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, zk, _, _, _ := parser()
		o, err := p.Parse(strings.Split(s, " ")...)
		if err != nil {
			return
		}
		_ = o.ValueOf(zk)
		_, _ = o.IntValueOf(zk)
		_ = CheckRequiredArgs(p, o, zk)
		_, _, _ = ParseKeyValueArgs(o.NonOptionArguments(), true)
	})
}
