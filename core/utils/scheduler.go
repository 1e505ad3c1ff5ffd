package utils

import "time"

// Scheduler runs named tasks once after a delay, or periodically.
//
// Kafka 0.10.2: kafka.utils.Scheduler. Kafka passes a TimeUnit; here delay and period
// are time.Durations. A period <= 0 means "run once".
type Scheduler interface {
	// Startup must be called before Schedule.
	Startup()
	// Shutdown stops the scheduler. KafkaScheduler waits for running tasks and drops the
	// pending ones; MockScheduler runs every pending task once, as Kafka's does.
	Shutdown()
	// IsStarted reports whether Startup was called and Shutdown was not.
	IsStarted() bool
	// Schedule runs fn after delay and then every period (if period > 0).
	Schedule(name string, fn func(), delay, period time.Duration)
}
