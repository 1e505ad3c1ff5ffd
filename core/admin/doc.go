// Package admin is the library half of Kafka's admin tools: topic creation and
// partition addition with the replica assignment algorithm, topic deletion
// marking, entity config changes with their /config/changes notification, and
// the validation rules (topic names, replica lists, topic and dynamic configs)
// the tools and the broker share.
//
// Kafka 0.10.2: kafka.admin (core/src/main/scala/kafka/admin: AdminUtils.scala,
// RackAwareMode.scala, BrokerMetadata.scala, AdminOperationException.scala), plus
// kafka.common.Topic (core/src/main/scala/kafka/common/Topic.scala) and the
// validation half of kafka.server.DynamicConfig.
//
// Bookmap: docs/bookmap.md (001 ch.5, topic management; 000 ch.7); the znodes
// written here, byte for byte through zk/zkutils, are in docs/formats.md §1.2.
//
// # Randomness
//
// Kafka draws the start index and the follower shift from one JVM-wide Random.
// Here the generator is injected (AdminUtils.Rand), and the algorithm itself is
// the pure function AssignReplicasWith taking both numbers as parameters, so
// tests replay Kafka's worked examples exactly.
//
// # Moves
//
// kafka.common.Topic's rules live here (topic.go) until clients/common takes
// them (layout B.4 row 19); DynamicConfig's name/value checks live here
// (dynamic_config.go) until core/server/config carries DynamicConfig. Both are
// pure functions with no state, so the move is mechanical.
//
// # Locks
//
// None: AdminUtils holds no mutable state besides its random generator, which
// callers must not share between goroutines.
package admin
