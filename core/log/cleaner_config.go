package log

import (
	"math"
	"time"
)

// CleanerConfig configures the log cleaner (compaction) threads.
//
// Kafka 0.10.2: kafka.log.CleanerConfig. The defaults of NewCleanerConfig are the case
// class's own defaults (used by tests); a broker builds its CleanerConfig from the
// log.cleaner.* properties (KafkaServer.startup: numThreads = log.cleaner.threads,
// dedupeBufferSize = log.cleaner.dedupe.buffer.size, and so on), whose defaults differ
// (128 MiB dedupe buffer, 512 KiB I/O buffer).
type CleanerConfig struct {
	// NumThreads is log.cleaner.threads.
	NumThreads int
	// DedupeBufferSize is log.cleaner.dedupe.buffer.size, shared by all threads.
	DedupeBufferSize int64
	// DedupeBufferLoadFactor is log.cleaner.io.buffer.load.factor.
	DedupeBufferLoadFactor float64
	// IOBufferSize is log.cleaner.io.buffer.size, shared by all threads (half read, half write).
	IOBufferSize int
	// MaxMessageSize bounds how far the I/O buffers may grow (message.max.bytes).
	MaxMessageSize int
	// MaxIOBytesPerSecond is log.cleaner.io.max.bytes.per.second (Kafka's default Double.MaxValue,
	// like <= 0 or +Inf, means unthrottled).
	MaxIOBytesPerSecond float64
	// BackOff is log.cleaner.backoff.ms: the sleep when no log needs cleaning.
	BackOff time.Duration
	// EnableCleaner is log.cleaner.enable.
	EnableCleaner bool
	// HashAlgorithm is the offset map's digest ("MD5").
	HashAlgorithm string
}

// NewCleanerConfig returns Kafka's CleanerConfig case-class defaults.
func NewCleanerConfig() CleanerConfig {
	return CleanerConfig{
		NumThreads:             1,
		DedupeBufferSize:       4 * 1024 * 1024,
		DedupeBufferLoadFactor: 0.9,
		IOBufferSize:           1024 * 1024,
		MaxMessageSize:         32 * 1024 * 1024,
		MaxIOBytesPerSecond:    math.MaxFloat64,
		BackOff:                15 * time.Second,
		EnableCleaner:          true,
		HashAlgorithm:          "MD5",
	}
}
