package producer

import (
	"errors"
	"testing"

	"github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/serialization"
)

func TestProducerConfigDefaults(t *testing.T) {
	c, err := NewProducerConfig(map[string]string{"bootstrap.servers": "h:1", "key.serializer": "k", "value.serializer": "v"})
	if err != nil {
		t.Fatal(err)
	}
	if c.BatchSize != 16384 || c.BufferMemory != 32<<20 || c.LingerMs != 0 || c.Acks != "1" || c.Retries != 0 ||
		c.MaxRequestSize != 1<<20 || c.MaxBlockMs != 60000 || c.RequestTimeoutMs != 30000 || c.MaxInFlightRequestsPerConnection != 5 ||
		c.RetryBackoffMs != 100 || c.MetadataMaxAgeMs != 300000 || c.CompressionType != "none" || c.SendBufferBytes != 131072 ||
		c.ReceiveBufferBytes != 32768 || c.ConnectionsMaxIdleMs != 540000 || c.PartitionerClass != DefaultPartitionerClass {
		t.Fatalf("defaults: %+v", c)
	}
	if c.acks() != 1 {
		t.Fatal("acks")
	}
}

// Bad configuration values fail construction with Kafka's ConfigException messages.
func TestProducerConfigErrors(t *testing.T) {
	base := func(kv ...string) map[string]string {
		m := map[string]string{"bootstrap.servers": "localhost:9092"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		props map[string]string
		want  string
	}{
		{map[string]string{}, `Missing required configuration "bootstrap.servers" which has no default value.`},
		{base("batch.size", "abc"), "Invalid value abc for configuration batch.size: Not a number of type INT"},
		{base("acks", "2"), "Invalid value 2 for configuration acks: String must be one of: all, -1, 0, 1"},
		{base("retries", "-1"), "Invalid value -1 for configuration retries: Value must be at least 0"},
		{base("max.in.flight.requests.per.connection", "0"), "Invalid value 0 for configuration max.in.flight.requests.per.connection: Value must be at least 1"},
		{base("linger.ms", "soon"), "Invalid value soon for configuration linger.ms: Not a number of type LONG"},
		{base("block.on.buffer.full", "maybe"), "Invalid value maybe for configuration block.on.buffer.full: Expected value to be either true or false"},
		{base("interceptor.classes", "com.example.Audit"), "Invalid value com.example.Audit for configuration interceptor.classes: Class com.example.Audit could not be found."},
		{base("security.protocol", "SSL"), "Invalid value SSL for configuration security.protocol: zkafka's clients support only PLAINTEXT"},
		{base("key.serializer", "com.example.Ser", "value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer"),
			"Failed to construct kafka producer: Invalid value com.example.Ser for configuration key.serializer: Class com.example.Ser could not be found."},
		{base("compression.type", "zstd"), "Failed to construct kafka producer: Unknown compression name: zstd"},
		{map[string]string{"bootstrap.servers": "no-port"}, "Failed to construct kafka producer: Invalid url in bootstrap.servers: no-port"},
	}
	for _, c := range cases {
		var p *KafkaProducer[[]byte, []byte]
		var err error
		if c.props["key.serializer"] != "" {
			p, err = NewKafkaProducer[[]byte, []byte](c.props, nil, nil)
		} else {
			p, err = NewKafkaProducer[[]byte, []byte](c.props, serialization.ByteArraySerializer{}, serialization.ByteArraySerializer{})
		}
		if err == nil {
			p.Close(0) //nolint:errcheck
			t.Errorf("%v: constructed", c.props)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("%v:\n got %q\nwant %q", c.props, err, c.want)
		}
		var ce *config.ConfigException
		if c.want[0] != 'F' && !errors.As(err, &ce) {
			t.Errorf("%v: not a ConfigException: %T", c.props, err)
		}
	}
}
