package server

import (
	"log"
	"os"

	"github.com/IBM/sarama"
)

func init() {
	if os.Getenv("F1_SARAMA_LOG") != "" {
		sarama.Logger = log.New(os.Stderr, "[sarama] ", log.Lmicroseconds)
	}
}
