package oldconsumer

import "testing"

// TestTopicFilter: Kafka's normalisation (trim, ',' as '|', no spaces, no surrounding quotes),
// whole-name matching, and internal topics left out when asked.
func TestTopicFilter(t *testing.T) {
	w, err := NewWhitelist(` "foo, bar.*" `)
	if err != nil {
		t.Fatal(err)
	}
	if w.Regex() != "foo|bar.*" {
		t.Fatalf("regex %q", w.Regex())
	}
	for topic, want := range map[string]bool{"foo": true, "foox": false, "bar": true, "barbaz": true, "xbar": false} {
		if got := w.IsTopicAllowed(topic, true); got != want {
			t.Errorf("whitelist %s: %v", topic, got)
		}
	}
	all, _ := NewWhitelist(".*")
	if all.IsTopicAllowed("__consumer_offsets", true) || !all.IsTopicAllowed("__consumer_offsets", false) {
		t.Error("internal topic filtering")
	}
	b, err := NewBlacklist("foo")
	if err != nil {
		t.Fatal(err)
	}
	if b.IsTopicAllowed("foo", true) || !b.IsTopicAllowed("foo2", true) || b.IsTopicAllowed("__consumer_offsets", true) {
		t.Error("blacklist")
	}
	if _, err := NewWhitelist("a(b"); err == nil || err.Error() != "a(b is an invalid regex." {
		t.Errorf("invalid regex: %v", err)
	}
}
