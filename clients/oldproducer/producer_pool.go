package oldproducer

import (
	"fmt"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/oldclient"
	"github.com/zkafka/zkafka/core/metrics"
)

// ProducerPool keeps one SyncProducer per leader broker.
//
// Kafka 0.10.2: kafka.producer.ProducerPool. Every metadata refresh replaces the producers of the
// leaders it names (closing the old ones), as Kafka's updateProducer does.
type ProducerPool struct {
	config *ProducerConfig
	reg    *metrics.Registry
	log    *logrus.Entry

	mu            sync.Mutex
	syncProducers map[int32]*SyncProducer
}

// NewProducerPool makes an empty pool.
func NewProducerPool(config *ProducerConfig, reg *metrics.Registry, log *logrus.Entry) *ProducerPool {
	if log == nil {
		log = discardEntry()
	}
	return &ProducerPool{config: config, reg: reg, log: log, syncProducers: map[int32]*SyncProducer{}}
}

// updateProducer (re)creates the producer of every leader in the metadata.
func (p *ProducerPool) updateProducer(leaders []oldclient.BrokerEndPoint) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range leaders {
		if old, ok := p.syncProducers[b.ID]; ok {
			old.Close()
		}
		p.syncProducers[b.ID] = NewSyncProducer(p.config, b.Host, b.Port, p.reg, p.log)
	}
}

// GetProducer is the producer of a broker.
func (p *ProducerPool) GetProducer(brokerID int32) (*SyncProducer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	sp, ok := p.syncProducers[brokerID]
	if !ok {
		return nil, fmt.Errorf("kafka.common.UnavailableProducerException: Sync producer for broker id %d does not exist", brokerID)
	}
	return sp, nil
}

// Close closes every producer.
func (p *ProducerPool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log.WithField("logger", "kafka.producer.ProducerPool").Info("Closing all sync producers")
	for _, sp := range p.syncProducers {
		sp.Close()
	}
}
