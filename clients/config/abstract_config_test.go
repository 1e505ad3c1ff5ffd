package config

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func sampleDef() *ConfigDef {
	d := NewConfigDef()
	d.Define("a.int", INT, "5", AtLeast(1), HIGH, "")
	d.Define("a.opt.long", LONG, nil, nil, HIGH, "")
	d.Define("a.list", LIST, "x,y", nil, HIGH, "")
	d.Define("a.secret", PASSWORD, nil, nil, HIGH, "")
	d.Define("a.required", STRING, NoDefault, nil, HIGH, "")
	d.Define("a.flag", BOOLEAN, "false", nil, HIGH, "")
	return d
}

type sampleCommon struct {
	Flag bool `config:"a.flag"`
}

type sampleProps struct {
	sampleCommon
	Int      int32     `config:"a.int"`
	OptLong  *int64    `config:"a.opt.long"`
	List     []string  `config:"a.list"`
	Secret   *Password `config:"a.secret"`
	Required string    `config:"a.required"`
	Derived  int       // untagged: left alone
}

func TestFillTypedFields(t *testing.T) {
	if err := CheckFields(sampleDef(), sampleProps{}); err != nil {
		t.Fatal(err)
	}
	ac, err := NewAbstractConfig(sampleDef(), map[string]string{"a.required": "r", "a.secret": " s3 ", "a.flag": "TRUE", "typo.key": "1", "other": "2"})
	if err != nil {
		t.Fatal(err)
	}
	p := sampleProps{Derived: 7}
	if err := ac.Fill(&p); err != nil {
		t.Fatal(err)
	}
	if p.Int != 5 || p.OptLong != nil || !slices.Equal(p.List, []string{"x", "y"}) || p.Secret == nil || p.Secret.Value() != "s3" ||
		p.Required != "r" || !p.Flag || p.Derived != 7 {
		t.Fatalf("filled %+v", p)
	}
	if fmt.Sprint(*p.Secret) != "[hidden]" {
		t.Errorf("password prints as %s", *p.Secret)
	}
	if got := ac.Unknown(); !slices.Equal(got, []string{"other", "typo.key"}) {
		t.Errorf("unknown %v", got)
	}
	if got := ac.UnusedMessages(); len(got) != 2 || got[1] != "The configuration 'typo.key' was supplied but isn't a known config." {
		t.Errorf("messages %q", got)
	}
	want := "Sample values: \n\ta.flag = true\n\ta.int = 5\n\ta.list = [x, y]\n\ta.opt.long = null\n\ta.required = r\n\ta.secret = [hidden]\n"
	if got := ac.LogString("Sample"); got != want {
		t.Errorf("LogString:\n%s\nwant\n%s", got, want)
	}
	ac2, _ := NewAbstractConfig(sampleDef(), map[string]string{"a.required": "r", "a.opt.long": "9"})
	if err := ac2.Fill(&p); err != nil || p.OptLong == nil || *p.OptLong != 9 || p.Secret != nil {
		t.Fatalf("second fill: %v %+v", err, p)
	}
}

func TestNewAbstractConfigErrors(t *testing.T) {
	cases := map[string]string{
		"a.int=x":  "Invalid value x for configuration a.int: Not a number of type INT",
		"a.int=0":  "Invalid value 0 for configuration a.int: Value must be at least 1",
		"a.flag=2": "Invalid value 2 for configuration a.flag: Expected value to be either true or false",
		"":         `Missing required configuration "a.required" which has no default value.`,
	}
	for kv, want := range cases {
		props := map[string]string{}
		if kv != "" {
			k, v, _ := strings.Cut(kv, "=")
			props = map[string]string{"a.required": "r", k: v}
		}
		_, err := NewAbstractConfig(sampleDef(), props)
		if _, isConfig := err.(*ConfigException); !isConfig || err.Error() != want {
			t.Errorf("%q: %v, want ConfigException %q", kv, err, want)
		}
	}
}

func TestCheckFieldsRejects(t *testing.T) {
	type missing struct {
		Int int32 `config:"a.int"`
	}
	type wrongType struct {
		sampleProps
		X int64 `config:"a.int"`
	}
	type notPointer struct {
		sampleCommon
		Int      int32     `config:"a.int"`
		OptLong  int64     `config:"a.opt.long"`
		List     []string  `config:"a.list"`
		Secret   *Password `config:"a.secret"`
		Required string    `config:"a.required"`
	}
	type undefined struct {
		sampleProps
		Y string `config:"no.such.key"`
	}
	for name, sample := range map[string]any{"missing": missing{}, "duplicate": wrongType{}, "notPointer": notPointer{}, "undefined": undefined{}} {
		if err := CheckFields(sampleDef(), sample); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}
