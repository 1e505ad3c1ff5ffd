package server

import (
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/controller"
	"github.com/zkafka/zkafka/core/utils"
)

// The KafkaServer side of the controller module every broker runs (only the one elected through
// /controller is active). The broker's half of a controlled shutdown is
// kafka_server_controlled_shutdown.go.

// ControlledShutdownHandler is what KafkaApis needs from the controller to answer a
// ControlledShutdown request: move leadership and follower duty off broker id and report the
// partitions it still leads. *controller.KafkaController satisfies it.
//
// Kafka 0.10.2: KafkaController.shutdownBroker, called from KafkaApis.handleControlledShutdownRequest.
type ControlledShutdownHandler interface {
	ShutdownBroker(id int32) ([]common.TopicPartition, error)
}

var _ ControlledShutdownHandler = (*controller.KafkaController)(nil)
var _ Controller = (*controller.KafkaController)(nil)

// newKafkaController builds the broker's controller module. It gets a scheduler of its own for
// the auto-rebalance task (the controller shuts it down when it resigns, so it must not be the
// broker's shared one), the "kafka.controller" logger (controller.log) and the
// state.change.logger (state-change.log).
//
// Kafka 0.10.2: `kafkaController = new KafkaController(config, zkUtils, brokerState, time, metrics,
// threadNamePrefix)` in KafkaServer.startup.
func (s *KafkaServer) newKafkaController() *controller.KafkaController {
	ctlLog := s.loggers.Controller
	c := controller.NewKafkaController(s.config, s.zkUtils, &s.BrokerState, s.time,
		utils.NewKafkaScheduler(1, ctlLog), ctlLog, s.loggers.StateChange)
	c.InterBroker = s.interBroker
	return c
}
