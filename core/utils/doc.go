// Package utils holds the broker's small shared machinery: the task scheduler
// (and its test double) and the directory file lock.
//
// Kafka 0.10.2: kafka.utils (core/src/main/scala/kafka/utils)
//
// Only the pieces other packages need so far are here: KafkaScheduler, MockScheduler
// (a port of Kafka's test-side kafka.utils.MockScheduler, kept in the main package so
// that other packages' tests can use it, as Kafka's core test jar is shared) and
// FileLock. Kafka's grab-bag kafka.utils is split up as docs/design.md §1.2 row 13 describes.
//
// Lock order: KafkaScheduler.mu and MockScheduler.mu are leaves; MockScheduler never
// holds its mutex while running a task, so a task may schedule further tasks.
package utils
