package commandline

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func parser() (*OptionParser, *OptionSpec, *OptionSpec, *OptionSpec, *OptionSpec) {
	p := NewOptionParser()
	zk := p.Accepts("zookeeper", "REQUIRED: The connection string.").WithRequiredArg().DescribedAs("urls")
	cfg := p.Accepts("config", "A topic configuration override.").WithRequiredArg().DescribedAs("name=value")
	del := p.Accepts("delete-config", "keys to remove").WithRequiredArg().WithValuesSeparatedBy(",")
	describe := p.Accepts("describe", "List details.")
	return p, zk, cfg, del, describe
}

func TestParse(t *testing.T) {
	p, zk, cfg, del, describe := parser()
	o, err := p.Parse("--zookeeper=h:1/c", "--config", "a=b", "--conf", "c = d", "--delete-config", "x,y", "-describe", "rest")
	if err != nil {
		t.Fatal(err)
	}
	if !o.Has(zk) || o.ValueOf(zk) != "h:1/c" || !o.Has(describe) {
		t.Errorf("zookeeper %q describe %v", o.ValueOf(zk), o.Has(describe))
	}
	if got := o.ValuesOf(cfg); !reflect.DeepEqual(got, []string{"a=b", "c = d"}) {
		t.Errorf("repeated --config %v", got)
	}
	if got := o.ValuesOf(del); !reflect.DeepEqual(got, []string{"x", "y"}) {
		t.Errorf("separated values %v", got)
	}
	if got := o.NonOptionArguments(); !reflect.DeepEqual(got, []string{"rest"}) {
		t.Errorf("non-options %v", got)
	}
	var order []string
	for _, s := range o.Specs() {
		order = append(order, s.Name())
	}
	if strings.Join(order, " ") != "zookeeper config config delete-config describe" {
		t.Errorf("detection order %v", order)
	}
}

func TestParseErrors(t *testing.T) {
	p, _, _, _, _ := parser()
	cases := map[string][]string{
		"joptsimple.UnrecognizedOptionException: bogus is not a recognized option":                 {"--bogus"},
		"joptsimple.UnrecognizedOptionException: d is not a recognized option":                     {"--d"}, // ambiguous prefix
		"joptsimple.OptionMissingRequiredArgumentException: Option zookeeper requires an argument": {"--zookeeper"},
		"joptsimple.UnrecognizedOptionException: describe is not a recognized option":              {"--describe=x"},
	}
	for want, args := range cases {
		_, err := p.Parse(args...)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Exception+": "+pe.Message != want {
			t.Errorf("%v: %v, want %s", args, err, want)
		}
		var buf bytes.Buffer
		if code := Fail(&buf, err); code != 1 || buf.String() != `Exception in thread "main" `+want+"\n" {
			t.Errorf("Fail: %d %q", code, buf.String())
		}
	}
	n := p.Accepts("partitions", "n").WithRequiredArg().OfType("Integer")
	o, _ := p.Parse("--partitions", "x")
	if _, err := o.IntValueOf(n); err == nil || err.Error() != "Cannot parse argument 'x' of option partitions" {
		t.Errorf("conversion: %v", err)
	}
}

func TestChecksAndHelp(t *testing.T) {
	p, zk, cfg, _, describe := parser()
	o, _ := p.Parse("--describe", "--config", "a=b")
	err := CheckRequiredArgs(p, o, describe, zk)
	if err == nil || err.Error() != `Missing required argument "[zookeeper]"` {
		t.Errorf("required: %v", err)
	}
	err = CheckInvalidArgs(p, o, cfg, zk, describe)
	if err == nil || err.Error() != `Option "[config]" can't be used with option"[describe]"` {
		t.Errorf("invalid: %v", err)
	}
	if CheckInvalidArgs(p, o, zk, cfg) != nil {
		t.Error("an absent option cannot be invalid")
	}
	var buf bytes.Buffer
	if code := Fail(&buf, err); code != ExitUsage {
		t.Errorf("exit %d", code)
	}
	want := `Option "[config]" can't be used with option"[describe]"
Option                      Description
------                      -----------
--config <String:           A topic configuration override.
  name=value>
`
	got := buf.String()
	lines := strings.Split(got, "\n")
	if lines[0] != strings.Split(want, "\n")[0] || !strings.Contains(got, "--zookeeper <String: urls>") || !strings.HasPrefix(lines[1], "Option ") ||
		!strings.HasPrefix(lines[2], "------ ") {
		t.Errorf("help:\n%s", got)
	}
	// Options are listed by name.
	if strings.Index(got, "--config") > strings.Index(got, "--delete-config") || strings.Index(got, "--describe") > strings.Index(got, "--zookeeper") {
		t.Errorf("help order:\n%s", got)
	}
}

func TestParseKeyValueArgs(t *testing.T) {
	props, order, err := ParseKeyValueArgs([]string{"a=1", "b", "c=", "a=2"}, true)
	if err != nil || !reflect.DeepEqual(props, map[string]string{"a": "2", "b": "", "c": ""}) || !reflect.DeepEqual(order, []string{"a", "b", "c"}) {
		t.Errorf("%v %v %v", props, order, err)
	}
	if _, _, err := ParseKeyValueArgs([]string{"b"}, false); err == nil || err.Error() != "Missing value for key b" {
		t.Errorf("missing value: %v", err)
	}
	_, _, err = ParseKeyValueArgs([]string{"a=1", "x=y=z"}, true)
	if !errors.Is(err, ErrInvalidProperties) || !strings.HasSuffix(err.Error(), "Invalid command line properties: a=1 x=y=z") {
		t.Errorf("two '=': %v", err)
	}
}

func TestToolsLogger(t *testing.T) {
	var buf bytes.Buffer
	l := ToolsLogger(&buf, "kafka.admin.TopicCommand$")
	l.Info("invisible")
	l.Warn("visible")
	got := buf.String()
	if strings.Contains(got, "invisible") || !strings.HasSuffix(got, "] WARN visible (kafka.admin.TopicCommand$)\n") || !strings.HasPrefix(got, "[") || !strings.Contains(got, ",") {
		t.Errorf("log line %q", got)
	}
}

func TestValidatePortOrDie(t *testing.T) {
	p := NewOptionParser()
	for _, ok := range []string{"h:9092", "h1:1,h2:2", "[::1]:9092"} {
		if err := ValidatePortOrDie(p, ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"h", "h:1,h2", ""} {
		if err := ValidatePortOrDie(p, bad); err == nil || err.Error() != "Please provide valid host:port like host1:9091,host2:9092\n " {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
