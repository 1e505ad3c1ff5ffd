package server

import (
	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/core/server/config"
)

// KafkaServerStartable is the process-level wrapper of a KafkaServer: it builds the server from
// its config, logs a failed startup as fatal, and lets the process wait for the shutdown that a
// signal handler triggers.
//
// Kafka 0.10.2: kafka.server.KafkaServerStartable. Kafka calls System.exit(1) on a startup
// failure; here Startup returns the error and the caller (tools/serverstart) exits.
type KafkaServerStartable struct {
	Server *KafkaServer
	logger *logrus.Entry
}

// NewKafkaServerStartable wraps a new KafkaServer for cfg.
func NewKafkaServerStartable(cfg *config.KafkaConfig, loggers Loggers, getenv func(string) string) *KafkaServerStartable {
	s := NewKafkaServer(cfg, nil, loggers, getenv)
	return &KafkaServerStartable{Server: s, logger: s.loggers.Server.WithField("logger", "kafka.server.KafkaServerStartable")}
}

// Startup starts the server; on failure the server has already shut itself down.
func (s *KafkaServerStartable) Startup() error {
	if err := s.Server.Startup(); err != nil {
		s.logger.WithError(err).Error("Fatal error during KafkaServerStartable startup. Prepare to shutdown")
		return err
	}
	return nil
}

// Shutdown shuts the server down (the shutdown hook's job).
func (s *KafkaServerStartable) Shutdown() { s.Server.Shutdown() }

// AwaitShutdown blocks until the server has shut down.
func (s *KafkaServerStartable) AwaitShutdown() { s.Server.AwaitShutdown() }
