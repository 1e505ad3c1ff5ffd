package types

import "encoding/binary"

// ArrayOf is an INT32 count followed by that many values of one element type. A nullable array
// encodes nil as the count -1.
//
// Kafka 0.10.2: org.apache.kafka.common.protocol.types.ArrayOf.
type ArrayOf struct {
	elem     Type
	nullable bool
}

// NewArrayOf returns the non-nullable array of elem (Kafka: new ArrayOf(elem)).
func NewArrayOf(elem Type) *ArrayOf { return &ArrayOf{elem: elem} }

// NullableArrayOf returns the nullable array of elem (Kafka: ArrayOf.nullable(elem)).
func NullableArrayOf(elem Type) *ArrayOf { return &ArrayOf{elem: elem, nullable: true} }

// Elem is the element type.
func (a *ArrayOf) Elem() Type { return a.elem }

// IsNullable implements Type.
func (a *ArrayOf) IsNullable() bool { return a.nullable }

// MinSize implements Type: the count alone.
func (a *ArrayOf) MinSize() int { return 4 }

// String implements Type.
func (a *ArrayOf) String() string {
	if a.nullable {
		return "NULLABLE_ARRAY(" + a.elem.String() + ")"
	}
	return "ARRAY(" + a.elem.String() + ")"
}

// Write implements Type; v is []any, or nil for a null nullable array.
func (a *ArrayOf) Write(dst []byte, v any) ([]byte, error) {
	if v == nil {
		if !a.nullable {
			return dst, schemaErrorf("null is not a valid %s", a)
		}
		return binary.BigEndian.AppendUint32(dst, 0xffffffff), nil
	}
	items, ok := v.([]any)
	if !ok {
		return dst, schemaErrorf("%T is not a valid %s", v, a)
	}
	if items == nil && a.nullable {
		return binary.BigEndian.AppendUint32(dst, 0xffffffff), nil
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(items)))
	for _, it := range items {
		var err error
		if dst, err = a.elem.Write(dst, it); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// Read implements Type. The count is checked against the bytes left (each element needs at
// least its type's MinSize) before anything is allocated.
func (a *ArrayOf) Read(b []byte) (any, int, error) {
	if len(b) < 4 {
		return nil, 0, schemaErrorf("array count needs 4 bytes, only %d available", len(b))
	}
	n := int64(int32(binary.BigEndian.Uint32(b)))
	if n < 0 {
		if a.nullable {
			return nil, 4, nil
		}
		return nil, 0, schemaErrorf("array size %d cannot be negative", n)
	}
	min := int64(a.elem.MinSize())
	if min < 1 {
		min = 1
	}
	if n*min > int64(len(b)-4) {
		return nil, 0, schemaErrorf("array of %d elements cannot fit in %d bytes", n, len(b)-4)
	}
	items := make([]any, n)
	off := 4
	for i := range items {
		v, used, err := a.elem.Read(b[off:])
		if err != nil {
			return nil, 0, err
		}
		items[i] = v
		off += used
	}
	return items, off, nil
}
