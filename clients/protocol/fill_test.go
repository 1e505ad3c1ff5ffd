package protocol

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/protocol/schema"
	"github.com/zkafka/zkafka/clients/protocol/types"
	"github.com/zkafka/zkafka/clients/record"
)

// filler sets every field that a schema version carries to a distinct non-zero value, walking the
// Go struct by the schema's field names. A field missing from the Go struct is a mismatch
// between the table and the generated code and fails the test.
type filler struct {
	t    testing.TB
	next int
}

func (f *filler) n() int { f.next++; return f.next }

func wireToGo(wire string) string {
	var b strings.Builder
	for _, p := range strings.Split(wire, "_") {
		if p == "id" {
			b.WriteString("ID")
			continue
		}
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	return b.String()
}

func (f *filler) fillStruct(v reflect.Value, s *types.Schema) {
	for _, fd := range s.Fields() {
		gf := v.FieldByName(wireToGo(fd.Name))
		if !gf.IsValid() {
			f.t.Fatalf("%s has no field for %q", v.Type(), fd.Name)
		}
		f.fillValue(gf, fd.Type)
	}
}

func (f *filler) fillValue(v reflect.Value, t types.Type) {
	switch tt := t.(type) {
	case *types.Schema:
		f.fillStruct(v, tt)
		return
	case *types.ArrayOf:
		n := 2
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := 0; i < n; i++ {
			f.fillValue(v.Index(i), tt.Elem())
		}
		return
	}
	k := f.n()
	switch t.String() {
	case "BOOLEAN":
		v.SetBool(true)
	case "INT8", "INT16", "INT32", "INT64":
		v.SetInt(int64(k*1000 + 7)) // distinct per field (INT16 values wrap, which is fine)
		if t.String() == "INT64" {
			v.SetInt(-(int64(k)<<40 | 0x55)) // negative: the sign survives the round trip
		}
	case "STRING":
		v.SetString(fmt.Sprintf("s%d-\u00e9", k))
	case "NULLABLE_STRING":
		s := fmt.Sprintf("n%d", k)
		v.Set(reflect.ValueOf(&s))
	case "BYTES", "NULLABLE_BYTES":
		v.SetBytes([]byte{byte(k), 0xff, 0})
	case "RECORDS":
		var rs record.Records = record.NewMemoryRecords([]byte{0, 0, 0, 0, 0, 0, 0, byte(k), 0, 0, 0, 3, 1, 2, 3})
		v.Set(reflect.ValueOf(rs))
	default:
		f.t.Fatalf("no filler for %s", t)
	}
}

// sample returns a fully populated message of key at version (request or response), and the
// schema the table gives for it.
func sample(t testing.TB, key ApiKeys, version int16, response bool) (Message, *types.Schema) {
	var m Message
	var s *types.Schema
	if response {
		m = newResponseMessage(key, version)
		s = schema.Responses[key][version]
	} else {
		m = newRequestMessage(key, version)
		s = schema.Requests[key][version]
	}
	if s == nil {
		t.Fatalf("%s v%d has no schema", key, version)
	}
	f := &filler{t: t, next: int(key) * 100}
	f.fillStruct(reflect.ValueOf(m).Elem(), s)
	return m, s
}

// allVersions lists every (key, version) the broker supports.
func allVersions() []struct {
	key     ApiKeys
	version int16
} {
	var out []struct {
		key     ApiKeys
		version int16
	}
	for _, sv := range SupportedVersions {
		for v := sv.MinVersion; v <= sv.MaxVersion; v++ {
			out = append(out, struct {
				key     ApiKeys
				version int16
			}{ApiKeys(sv.ApiKey), v})
		}
	}
	return out
}
