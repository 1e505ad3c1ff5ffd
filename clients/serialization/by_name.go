package serialization

const pkg = "org.apache.kafka.common.serialization."

// ByName returns the built-in serializer a Java client would load for class (key.serializer,
// value.serializer), as a Serializer[T]: ok is false when the class is not a built-in one, or
// when it serializes another type than T (the Java client's ClassCastException, at send time
// there, at construction here). String, Integer, Long and Double classes are also offered for
// *string, *int32, *int64 and *float64 (nil being null).
func ByName[T any](class string) (Serializer[T], bool) {
	var s any
	switch class {
	case pkg + "ByteArraySerializer":
		s = ByteArraySerializer{}
	case pkg + "StringSerializer":
		s = pick[T](Serializer[string](&StringSerializer{}), Nullable[string](&StringSerializer{}))
	case pkg + "IntegerSerializer":
		s = pick[T](Serializer[int32](IntegerSerializer{}), Nullable[int32](IntegerSerializer{}))
	case pkg + "LongSerializer":
		s = pick[T](Serializer[int64](LongSerializer{}), Nullable[int64](LongSerializer{}))
	case pkg + "DoubleSerializer":
		s = pick[T](Serializer[float64](DoubleSerializer{}), Nullable[float64](DoubleSerializer{}))
	default:
		return nil, false
	}
	ser, ok := s.(Serializer[T])
	return ser, ok
}

// pick returns whichever of plain and nullable is a Serializer[T].
func pick[T any](plain, nullable any) any {
	if _, ok := plain.(Serializer[T]); ok {
		return plain
	}
	return nullable
}

// KnownSerializer reports a built-in serializer class name.
func KnownSerializer(class string) bool {
	switch class {
	case pkg + "ByteArraySerializer", pkg + "StringSerializer", pkg + "IntegerSerializer", pkg + "LongSerializer", pkg + "DoubleSerializer":
		return true
	}
	return false
}
