package server

import (
	"log"
	"os"

	"github.com/IBM/sarama"
)

// ZKAFKA_SARAMA_LOG=1 lets sarama's client log through to stderr (to debug the end-to-end test).
func init() {
	if os.Getenv("ZKAFKA_SARAMA_LOG") != "" {
		sarama.Logger = log.New(os.Stderr, "[sarama] ", log.Lmicroseconds)
	}
}
