package admin

// BrokerMetadata is what the assignment needs of a broker: its id and its
// rack ("" when it has none; Kafka uses Option[String]).
//
// Kafka 0.10.2: kafka.admin.BrokerMetadata.
type BrokerMetadata struct {
	ID   int32
	Rack string
}
