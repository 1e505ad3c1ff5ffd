package types

import (
	"fmt"
	"strings"
)

// Field is one named, typed member of a Schema.
//
// Kafka 0.10.2: org.apache.kafka.common.protocol.types.Field. Kafka's fields also carry a doc
// string and a default; the wire never uses either, so zkafka keeps only name and type.
type Field struct {
	Name string
	Type Type
}

// NewField returns a Field.
func NewField(name string, t Type) Field { return Field{Name: name, Type: t} }

// Schema is an ordered list of fields, encoded one after the other with no framing. A Schema is
// itself a Type, so it can be an array element or a field.
//
// Kafka 0.10.2: org.apache.kafka.common.protocol.types.Schema.
type Schema struct {
	fields []Field
	index  map[string]int
}

// NewSchema returns a schema over fields; it panics on a duplicate field name because the schema
// table is static program text, and a duplicate is a transcription bug caught at start-up.
func NewSchema(fields ...Field) *Schema {
	s := &Schema{fields: fields, index: make(map[string]int, len(fields))}
	for i, f := range fields {
		if _, dup := s.index[f.Name]; dup {
			panic("types: duplicate field " + f.Name)
		}
		s.index[f.Name] = i
	}
	return s
}

// Fields returns the fields in wire order. The caller must not modify the slice.
func (s *Schema) Fields() []Field { return s.fields }

// Field returns the field called name.
func (s *Schema) Field(name string) (Field, bool) {
	i, ok := s.index[name]
	if !ok {
		return Field{}, false
	}
	return s.fields[i], true
}

// IsNullable implements Type.
func (s *Schema) IsNullable() bool { return false }

// MinSize implements Type: the sum of the fields' minimum sizes.
func (s *Schema) MinSize() int {
	n := 0
	for _, f := range s.fields {
		n += f.Type.MinSize()
	}
	return n
}

// String implements Type, in the style of Schema.toString.
func (s *Schema) String() string {
	parts := make([]string, len(s.fields))
	for i, f := range s.fields {
		parts[i] = f.Name + ":" + f.Type.String()
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// Write implements Type; v must be a *Struct of this schema.
func (s *Schema) Write(dst []byte, v any) ([]byte, error) {
	st, ok := v.(*Struct)
	if !ok || st == nil || st.schema != s {
		return dst, schemaErrorf("%T is not a Struct of schema %s", v, s)
	}
	for i, f := range s.fields {
		var err error
		if dst, err = f.Type.Write(dst, st.values[i]); err != nil {
			return dst, fmt.Errorf("writing field %q: %w", f.Name, err)
		}
	}
	return dst, nil
}

// Read implements Type: it decodes the fields in order and returns a *Struct. Trailing bytes
// are left for the caller (Kafka ignores them too).
func (s *Schema) Read(b []byte) (any, int, error) {
	st := &Struct{schema: s, values: make([]any, len(s.fields))}
	off := 0
	for i, f := range s.fields {
		v, n, err := f.Type.Read(b[off:])
		if err != nil {
			return nil, 0, fmt.Errorf("reading field %q: %w", f.Name, err)
		}
		st.values[i] = v
		off += n
	}
	return st, off, nil
}

// Struct is a record of values laid out by a Schema.
//
// Kafka 0.10.2: org.apache.kafka.common.protocol.types.Struct.
type Struct struct {
	schema *Schema
	values []any
}

// NewStruct returns a Struct of s with every value nil.
func NewStruct(s *Schema) *Struct { return &Struct{schema: s, values: make([]any, len(s.fields))} }

// Schema returns the struct's schema.
func (st *Struct) Schema() *Schema { return st.schema }

// Get returns the value of the named field, or nil if the schema has no such field.
func (st *Struct) Get(name string) any {
	i, ok := st.schema.index[name]
	if !ok {
		return nil
	}
	return st.values[i]
}

// Set sets the named field and returns st, so calls chain as in Kafka.
func (st *Struct) Set(name string, v any) (*Struct, error) {
	i, ok := st.schema.index[name]
	if !ok {
		return st, schemaErrorf("unknown field %q in %s", name, st.schema)
	}
	st.values[i] = v
	return st, nil
}
