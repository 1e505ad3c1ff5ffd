package config

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestParseProperties(t *testing.T) {
	in := "# comment\n! bang comment\n  broker.id = 3\nlog.dirs=/a,\\\n   /b\nkey:colon\nspaced value here\nuni=\\u0041\\tB\nempty=\n"
	got, err := ParseProperties(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"broker.id": "3", "log.dirs": "/a,/b", "key": "colon", "spaced": "value here", "uni": "A\tB", "empty": ""}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d keys: %v", len(got), got)
	}
	if _, err := ParseProperties(strings.NewReader("bad=\\u00zz\n")); err == nil {
		t.Error("malformed \\u escape accepted")
	}
}

func TestConfigDefParseAndMessages(t *testing.T) {
	d := NewConfigDef().
		Define("zookeeper.connect", STRING, NoDefault, nil, HIGH, "").
		Define("num.io.threads", INT, "8", AtLeast(1), HIGH, "").
		Define("log.cleanup.policy", LIST, "delete", ValidList("compact", "delete"), MEDIUM, "").
		Define("compression.type", STRING, "producer", ValidString("uncompressed", "snappy", "lz4", "gzip", "producer"), HIGH, "").
		Define("log.retention.ms", LONG, nil, nil, HIGH, "").
		Define("ratio", DOUBLE, "0.5", nil, LOW, "").
		Define("flag", BOOLEAN, "true", nil, LOW, "")
	cases := []struct {
		props map[string]string
		err   string
	}{
		{map[string]string{}, `Missing required configuration "zookeeper.connect" which has no default value.`},
		{map[string]string{"zookeeper.connect": "x", "num.io.threads": "abc"}, "Invalid value abc for configuration num.io.threads: Not a number of type INT"},
		{map[string]string{"zookeeper.connect": "x", "num.io.threads": "0"}, "Invalid value 0 for configuration num.io.threads: Value must be at least 1"},
		{map[string]string{"zookeeper.connect": "x", "log.cleanup.policy": "compact, nope"}, "Invalid value nope for configuration log.cleanup.policy: String must be one of: compact, delete"},
		{map[string]string{"zookeeper.connect": "x", "compression.type": "none"}, "Invalid value none for configuration compression.type: String must be one of: uncompressed, snappy, lz4, gzip, producer"},
		{map[string]string{"zookeeper.connect": "x", "flag": "yes"}, "Invalid value yes for configuration flag: Expected value to be either true or false"},
	}
	for _, c := range cases {
		_, err := d.Parse(c.props)
		if err == nil || err.Error() != c.err {
			t.Errorf("Parse(%v) error = %v, want %q", c.props, err, c.err)
		}
	}
	v, err := d.Parse(map[string]string{"zookeeper.connect": " zk:2181 ", "log.cleanup.policy": "compact , delete", "flag": "FALSE"})
	if err != nil {
		t.Fatal(err)
	}
	if v["zookeeper.connect"] != "zk:2181" || v["num.io.threads"] != int32(8) || v["log.retention.ms"] != nil || v["ratio"] != 0.5 || v["flag"] != false {
		t.Fatalf("values: %v", v)
	}
	if l := v["log.cleanup.policy"].([]string); len(l) != 2 || l[0] != "compact" || l[1] != "delete" {
		t.Fatalf("list: %v", l)
	}
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
