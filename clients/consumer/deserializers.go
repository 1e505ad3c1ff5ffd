package consumer

import "github.com/zkafka/zkafka/clients/serialization"

const serdePkg = "org.apache.kafka.common.serialization."

// deserializerByName returns the built-in deserializer a Java client would load for class
// (key.deserializer, value.deserializer) as a Deserializer[T]; ok is false when the class is not
// built in or yields another type than T (Kafka's ClassCastException, at construction here).
func deserializerByName[T any](class string) (serialization.Deserializer[T], bool) {
	var d any
	switch class {
	case serdePkg + "ByteArrayDeserializer":
		d = serialization.ByteArrayDeserializer{}
	case serdePkg + "StringDeserializer":
		d = pickDeserializer[T](serialization.Deserializer[string](&serialization.StringDeserializer{}),
			serialization.NullableDeserializer[string](&serialization.StringDeserializer{}))
	case serdePkg + "IntegerDeserializer":
		d = pickDeserializer[T](serialization.Deserializer[int32](serialization.IntegerDeserializer{}),
			serialization.NullableDeserializer[int32](serialization.IntegerDeserializer{}))
	case serdePkg + "LongDeserializer":
		d = pickDeserializer[T](serialization.Deserializer[int64](serialization.LongDeserializer{}),
			serialization.NullableDeserializer[int64](serialization.LongDeserializer{}))
	case serdePkg + "DoubleDeserializer":
		d = pickDeserializer[T](serialization.Deserializer[float64](serialization.DoubleDeserializer{}),
			serialization.NullableDeserializer[float64](serialization.DoubleDeserializer{}))
	default:
		return nil, false
	}
	ds, ok := d.(serialization.Deserializer[T])
	return ds, ok
}

func pickDeserializer[T any](plain, nullable any) any {
	if _, ok := plain.(serialization.Deserializer[T]); ok {
		return plain
	}
	return nullable
}
