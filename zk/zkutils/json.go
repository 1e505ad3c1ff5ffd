package zkutils

import (
	"fmt"
	"strconv"
	"strings"
)

// jsonObject is a JSON object whose members are written in the order of Keys.
// The codecs build one per znode and choose the order with the scala*Order and
// javaHashtableOrder helpers, which reproduce the iteration order of the Scala
// or Java map Kafka handed to its encoder.
type jsonObject struct {
	Keys   []string
	Values []any
}

func (o *jsonObject) put(key string, value any) {
	o.Keys = append(o.Keys, key)
	o.Values = append(o.Values, value)
}

func (o *jsonObject) get(key string) any {
	for i, k := range o.Keys {
		if k == key {
			return o.Values[i]
		}
	}
	return nil
}

// reorder returns a copy of o with its members in the given key order.
func (o *jsonObject) reorder(keys []string) *jsonObject {
	r := &jsonObject{}
	for _, k := range keys {
		r.put(k, o.get(k))
	}
	return r
}

// scalaImmutable returns o as an immutable Scala Map literal built with its
// members in insertion order would iterate (Map("a" -> 1, ...)).
func (o *jsonObject) scalaImmutable() *jsonObject { return o.reorder(scalaImmutableMapOrder(o.Keys)) }

// scalaMutable returns o as a scala.collection.mutable.HashMap filled in
// insertion order would iterate.
func (o *jsonObject) scalaMutable() *jsonObject { return o.reorder(scalaMutableHashMapOrder(o.Keys)) }

// jsonRaw is text written verbatim (used for already escaped strings).
type jsonRaw string

// encodeJSON writes v the way kafka.utils.Json.encode does:
//   - nil is null, booleans true/false;
//   - strings are wrapped in double quotes with NO escaping at all (a quote in a
//     value yields invalid JSON, exactly as Kafka writes it);
//   - integers in decimal (Kafka only ever writes integers);
//   - objects and arrays without any whitespace, members in the order given.
//
// Kafka 0.10.2: kafka.utils.Json.encode. Anything else is a programming error and
// is rendered as a quoted %v to keep the encoder total.
func encodeJSON(v any) string {
	var b strings.Builder
	writeJSON(&b, v)
	return b.String()
}

func writeJSON(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		b.WriteByte('"')
		b.WriteString(x)
		b.WriteByte('"')
	case jsonRaw:
		b.WriteByte('"')
		b.WriteString(string(x))
		b.WriteByte('"')
	case int:
		b.WriteString(strconv.Itoa(x))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case *jsonObject:
		b.WriteByte('{')
		for i, k := range x.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, k)
			b.WriteByte(':')
			writeJSON(b, x.Values[i])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case []int32:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	default:
		writeJSON(b, fmt.Sprintf("%v", x))
	}
}

// JSONEscapeString escapes a string for JSON the way Kafka does in the one place
// it escapes at all (the regex of an old consumer's wildcard subscription): quote,
// backslash and slash are backslash-escaped, \b \f \n \r \t get their short forms,
// and C0, DEL and C1 control characters become \u00XX.
//
// Kafka 0.10.2: kafka.utils.CoreUtils.JSONEscapeString.
func JSONEscapeString(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '/':
			b.WriteString(`\/`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r <= 0x1f || (r >= 0x7f && r <= 0x9f) {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}
