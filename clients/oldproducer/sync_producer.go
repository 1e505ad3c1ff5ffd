package oldproducer

import (
	"context"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/oldclient"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/metrics"
)

// ProducerRequestCurrentVersion is the Produce version the old producer sends
// (kafka.api.ProducerRequest.CurrentVersion in 0.10.2).
const ProducerRequestCurrentVersion int16 = 2

// SyncProducer sends produce (and metadata) requests to one broker over one blocking
// connection, connecting on first use; an I/O failure disconnects, so that the next send
// reconnects (the caller decides whether to retry).
//
// Kafka 0.10.2: kafka.producer.SyncProducer.
type SyncProducer struct {
	host     string
	port     int32
	clientID string
	stats    *ProducerRequestStats
	log      *logrus.Entry

	mu       sync.Mutex
	channel  *oldclient.BlockingChannel
	shutdown bool
}

// NewSyncProducer makes a producer to host:port; request.timeout.ms bounds connect and each
// exchange.
func NewSyncProducer(config *ProducerConfig, host string, port int32, reg *metrics.Registry, log *logrus.Entry) *SyncProducer {
	if log == nil {
		log = discardEntry()
	}
	return &SyncProducer{host: host, port: port, clientID: config.ClientID, stats: newProducerRequestStats(reg, config.ClientID),
		log:     log.WithField("logger", "kafka.producer.SyncProducer"),
		channel: oldclient.NewBlockingChannel(host, port, config.ClientID, time.Duration(config.RequestTimeoutMs)*time.Millisecond)}
}

// Host is the broker's host.
func (p *SyncProducer) Host() string { return p.host }

// Port is the broker's port.
func (p *SyncProducer) Port() int32 { return p.port }

func (p *SyncProducer) getOrMakeConnection() error {
	if p.channel.IsConnected() || p.shutdown {
		return nil
	}
	if err := p.channel.Connect(); err != nil {
		p.log.WithError(err).Errorf("Producer connection to %s unsuccessful", p.channel.Addr())
		return err
	}
	p.log.Infof("Connected to %s for producing", p.channel.Addr())
	return nil
}

func (p *SyncProducer) doSend(ctx context.Context, req, resp protocol.Message) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.getOrMakeConnection(); err != nil {
		return err
	}
	return p.channel.SendContext(ctx, req, resp)
}

// Send sends a produce request; with acks = 0 the broker does not answer and the response is
// nil.
func (p *SyncProducer) Send(ctx context.Context, req *protocol.ProduceRequest) (*protocol.ProduceResponse, error) {
	size := int64(produceRequestSize(req))
	specific := p.stats.forBroker(p.host, p.port)
	specific.RequestSizeHist.Update(size)
	p.stats.all.RequestSizeHist.Update(size)
	var resp *protocol.ProduceResponse
	if req.Acks != 0 {
		resp = &protocol.ProduceResponse{Version: req.Version}
	}
	start := time.Now()
	var err error
	if resp != nil {
		err = p.doSend(ctx, req, resp)
	} else {
		err = p.doSend(ctx, req, nil)
	}
	d := time.Since(start)
	specific.RequestTimer.Update(d)
	p.stats.all.RequestTimer.Update(d)
	if err != nil {
		return nil, err
	}
	if resp != nil {
		throttle := time.Duration(resp.ThrottleTimeMs) * time.Millisecond
		specific.ThrottleTimeStats.Update(throttle)
		p.stats.all.ThrottleTimeStats.Update(throttle)
	}
	return resp, nil
}

// SendMetadata sends a topic metadata request (v0).
func (p *SyncProducer) SendMetadata(ctx context.Context, topics []string) (*protocol.MetadataResponse, error) {
	resp := &protocol.MetadataResponse{Version: 0}
	return resp, p.doSend(ctx, &protocol.MetadataRequest{Version: 0, Topics: topics}, resp)
}

// Close disconnects; later sends fail.
func (p *SyncProducer) Close() {
	p.channel.Disconnect()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log.Infof("Disconnecting from %s", p.channel.Addr())
	p.channel.Disconnect()
	p.shutdown = true
}

// produceRequestSize is the bytes of record data in a produce request.
func produceRequestSize(req *protocol.ProduceRequest) int {
	n := 0
	for _, t := range req.TopicData {
		for _, d := range t.Data {
			if d.RecordSet != nil {
				n += d.RecordSet.SizeInBytes()
			}
		}
	}
	return n
}

func discardEntry() *logrus.Entry {
	l := logrus.New()
	l.SetLevel(logrus.PanicLevel)
	return logrus.NewEntry(l)
}
