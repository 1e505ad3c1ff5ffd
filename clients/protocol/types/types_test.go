package types

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

func TestPrimitivesRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		t    Type
		v    any
		want []byte
	}{
		{BOOLEAN, true, []byte{1}},
		{BOOLEAN, false, []byte{0}},
		{INT8, int8(-2), []byte{0xfe}},
		{INT16, int16(-2), []byte{0xff, 0xfe}},
		{INT32, int32(258), []byte{0, 0, 1, 2}},
		{INT64, int64(-1), bytes.Repeat([]byte{0xff}, 8)},
		{STRING, "hé", []byte{0, 3, 'h', 0xc3, 0xa9}},
		{NULLABLE_STRING, nil, []byte{0xff, 0xff}},
		{NULLABLE_STRING, "", []byte{0, 0}},
		{BYTES, []byte{9}, []byte{0, 0, 0, 1, 9}},
		{NULLABLE_BYTES, nil, []byte{0xff, 0xff, 0xff, 0xff}},
		{RECORDS, []byte{1, 2}, []byte{0, 0, 0, 2, 1, 2}},
		{NewArrayOf(INT32), []any{int32(1)}, []byte{0, 0, 0, 1, 0, 0, 0, 1}},
		{NullableArrayOf(STRING), nil, []byte{0xff, 0xff, 0xff, 0xff}},
	} {
		got, err := tc.t.Write(nil, tc.v)
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("%s.Write(%v) = %x, %v; want %x", tc.t, tc.v, got, err, tc.want)
			continue
		}
		v, n, err := tc.t.Read(append(got, 0xaa))
		if err != nil || n != len(tc.want) || !reflect.DeepEqual(v, tc.v) {
			t.Errorf("%s.Read = %#v, %d, %v", tc.t, v, n, err)
		}
	}
	// Any non-zero byte reads as true; any negative length of a nullable string is null.
	if v, _, _ := BOOLEAN.Read([]byte{7}); v != true {
		t.Error("BOOLEAN 7")
	}
	if v, n, err := NULLABLE_STRING.Read([]byte{0xff, 0x00}); v != nil || n != 2 || err != nil {
		t.Error("NULLABLE_STRING -256")
	}
}

func TestReadRejects(t *testing.T) {
	for _, tc := range []struct {
		t Type
		b []byte
	}{
		{INT32, []byte{0, 0, 0}},
		{STRING, []byte{0xff, 0xff}},
		{STRING, []byte{0, 5, 'a'}},
		{NULLABLE_STRING, []byte{0, 5, 'a'}},
		{BYTES, []byte{0xff, 0xff, 0xff, 0xff}},
		{BYTES, []byte{0, 0, 0, 2, 1}},
		{RECORDS, []byte{0xff, 0xff, 0xff, 0xff}},
		{NewArrayOf(INT32), []byte{0xff, 0xff, 0xff, 0xff}},
		{NewArrayOf(INT64), []byte{0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},          // 2×8 bytes needed, 11 left
		{NewArrayOf(STRING), []byte{0x7f, 0xff, 0xff, 0xff, 0, 0}},                        // huge count
		{NewSchema(NewField("a", INT16), NewField("b", STRING)), []byte{0, 1, 0, 2, 'x'}}, // short second field
	} {
		if _, _, err := tc.t.Read(tc.b); !errors.Is(err, ErrSchema) {
			t.Errorf("%s.Read(%x): %v", tc.t, tc.b, err)
		}
	}
}

func TestWriteRejects(t *testing.T) {
	for _, tc := range []struct {
		t Type
		v any
	}{
		{INT32, int64(1)},
		{STRING, nil},
		{STRING, string(make([]byte, 40000))},
		{NewArrayOf(INT32), nil},
		{NewArrayOf(INT32), []any{"x"}},
		{NewSchema(NewField("a", INT16)), "x"},
	} {
		if _, err := tc.t.Write(nil, tc.v); !errors.Is(err, ErrSchema) {
			t.Errorf("%s.Write(%T): %v", tc.t, tc.v, err)
		}
	}
}

func TestSchemaStruct(t *testing.T) {
	inner := NewSchema(NewField("p", INT32))
	s := NewSchema(NewField("topic", STRING), NewField("parts", NewArrayOf(inner)))
	if s.MinSize() != 6 || s.String() != "{topic:STRING,parts:ARRAY({p:INT32})}" {
		t.Fatalf("%d %s", s.MinSize(), s)
	}
	p := NewStruct(inner)
	if _, err := p.Set("p", int32(4)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Set("nope", 1); err == nil {
		t.Fatal("unknown field set")
	}
	st := NewStruct(s)
	st.Set("topic", "t")
	st.Set("parts", []any{p})
	b, err := s.Write(nil, st)
	if err != nil || !bytes.Equal(b, []byte{0, 1, 't', 0, 0, 0, 1, 0, 0, 0, 4}) {
		t.Fatalf("%x %v", b, err)
	}
	v, n, err := s.Read(b)
	if err != nil || n != len(b) {
		t.Fatal(err)
	}
	got := v.(*Struct)
	if got.Get("topic") != "t" || got.Get("parts").([]any)[0].(*Struct).Get("p") != int32(4) || got.Get("x") != nil {
		t.Fatalf("%+v", got)
	}
	if f, ok := s.Field("parts"); !ok || f.Type.(*ArrayOf).Elem() != inner {
		t.Fatal("Field lookup")
	}
}

func FuzzSchemaRead(f *testing.F) {
	s := NewSchema(NewField("a", NULLABLE_STRING), NewField("b", NullableArrayOf(NewSchema(NewField("c", BYTES), NewField("d", BOOLEAN)))), NewField("e", RECORDS))
	f.Add([]byte{0, 1, 'x', 0, 0, 0, 1, 0, 0, 0, 1, 7, 1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, n, err := s.Read(b)
		if err != nil {
			return
		}
		if n > len(b) {
			t.Fatal("read past the input")
		}
		if _, err := s.Write(nil, v); err != nil {
			t.Fatalf("decoded value does not encode: %v", err)
		}
	})
}
