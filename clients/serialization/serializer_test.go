package serialization

import (
	"bytes"
	"errors"
	"testing"

	"go.uber.org/goleak"
)

func TestRoundTrips(t *testing.T) {
	b, _ := IntegerSerializer{}.Serialize("t", -2)
	if !bytes.Equal(b, []byte{0xff, 0xff, 0xff, 0xfe}) {
		t.Fatalf("int %x", b)
	}
	if v, err := (IntegerDeserializer{}).Deserialize("t", b); err != nil || v != -2 {
		t.Fatal(v, err)
	}
	if _, err := (IntegerDeserializer{}).Deserialize("t", []byte{1}); !errors.Is(err, ErrSerialization) {
		t.Fatal(err)
	}
	b, _ = LongSerializer{}.Serialize("t", 1<<40)
	if v, _ := (LongDeserializer{}).Deserialize("t", b); v != 1<<40 || len(b) != 8 {
		t.Fatal(v)
	}
	b, _ = DoubleSerializer{}.Serialize("t", 1.5)
	if v, _ := (DoubleDeserializer{}).Deserialize("t", b); v != 1.5 {
		t.Fatal(v)
	}
	s := &StringSerializer{}
	s.Configure(map[string]string{"key.serializer.encoding": "UTF-8"}, true)
	if b, err := s.Serialize("t", "héllo"); err != nil || string(b) != "héllo" {
		t.Fatal(b, err)
	}
	s.Configure(map[string]string{"serializer.encoding": "UTF-16"}, false)
	if _, err := s.Serialize("t", "x"); !errors.Is(err, ErrSerialization) {
		t.Fatal("unsupported encoding accepted")
	}
	n := Nullable[string](&StringSerializer{})
	if b, _ := n.Serialize("t", nil); b != nil {
		t.Fatal("nil pointer must be null")
	}
	x := "x"
	if b, _ := n.Serialize("t", &x); string(b) != "x" {
		t.Fatal("nullable")
	}
	if v, _ := NullableDeserializer[int32](IntegerDeserializer{}).Deserialize("t", nil); v != nil {
		t.Fatal("null must be nil")
	}
}

func TestByName(t *testing.T) {
	if _, ok := ByName[[]byte](pkg + "ByteArraySerializer"); !ok {
		t.Fatal("byte array")
	}
	if _, ok := ByName[string](pkg + "StringSerializer"); !ok {
		t.Fatal("string")
	}
	if s, ok := ByName[*string](pkg + "StringSerializer"); !ok {
		t.Fatal("*string")
	} else if b, _ := s.Serialize("t", nil); b != nil {
		t.Fatal("nullable by name")
	}
	if _, ok := ByName[[]byte](pkg + "StringSerializer"); ok {
		t.Fatal("a string serializer is not a []byte one")
	}
	if _, ok := ByName[[]byte]("com.example.Nope"); ok || KnownSerializer("com.example.Nope") {
		t.Fatal("unknown class")
	}
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
