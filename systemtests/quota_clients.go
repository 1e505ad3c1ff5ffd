package systemtests

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/IBM/sarama"
)

// QuotaSample is one answered request of a QuotaClient: when its response arrived, how many
// payload bytes it carried (record values produced or fetched) and the throttle_time_ms the
// broker put in it.
type QuotaSample struct {
	At       time.Time
	Bytes    int
	Throttle time.Duration
}

// QuotaClient drives one sarama connection (sarama's own protocol code, client.id ClientID) with
// produce or fetch requests, paced at a demand rate and never catching up after a slow
// response: the application a quota is set for. Every response is logged as a QuotaSample.
type QuotaClient struct {
	mu      sync.Mutex
	samples []QuotaSample
	err     error
	cancel  context.CancelFunc
	done    chan struct{}
}

// QuotaClientSpec says what a QuotaClient does.
type QuotaClientSpec struct {
	Addr, ClientID, Topic string
	// Demand is the application's rate in bytes/s (0: as fast as responses come).
	Demand float64
	// RequestBytes is the payload per request: that many bytes of record values per produce
	// (in records of 10 KiB), or the partition's max_bytes per fetch.
	RequestBytes int
	// Fetch makes a consumer of partition 0 from offset 0; otherwise a producer (acks=1).
	Fetch bool
	// Limit stops the client once it has that many payload bytes (0: no limit).
	Limit int
}

// StartQuotaClient connects and runs the client until Stop.
func StartQuotaClient(spec QuotaClientSpec) (*QuotaClient, error) {
	conf := sarama.NewConfig()
	conf.ClientID = spec.ClientID
	conf.Version = sarama.V0_10_2_0
	conf.Net.ReadTimeout = 2 * time.Minute // a first throttle after a burst may be long
	b := sarama.NewBroker(spec.Addr)
	if err := b.Open(conf); err != nil {
		return nil, err
	}
	if ok, err := b.Connected(); !ok {
		return nil, fmt.Errorf("connecting to %s: %v", spec.Addr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &QuotaClient{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		defer b.Close() //nolint:errcheck
		var interval time.Duration
		if spec.Demand > 0 {
			interval = time.Duration(float64(spec.RequestBytes) / spec.Demand * float64(time.Second))
		}
		var offset int64
		value := make([]byte, 10<<10)
		total := 0
		for ctx.Err() == nil && (spec.Limit == 0 || total < spec.Limit) {
			t0 := time.Now()
			var n int
			var throttle time.Duration
			var err error
			if spec.Fetch {
				n, throttle, offset, err = quotaFetch(b, spec, offset)
			} else {
				n, throttle, err = quotaProduce(b, spec, value)
			}
			if err != nil {
				if ctx.Err() == nil {
					c.mu.Lock()
					c.err = err
					c.mu.Unlock()
				}
				return
			}
			c.mu.Lock()
			c.samples = append(c.samples, QuotaSample{At: time.Now(), Bytes: n, Throttle: throttle})
			c.mu.Unlock()
			total += n
			if wait := time.Until(t0.Add(interval)); wait > 0 {
				select {
				case <-time.After(wait):
				case <-ctx.Done():
				}
			}
		}
	}()
	return c, nil
}

func quotaProduce(b *sarama.Broker, spec QuotaClientSpec, value []byte) (int, time.Duration, error) {
	req := &sarama.ProduceRequest{Version: 2, RequiredAcks: sarama.WaitForLocal, Timeout: 30_000}
	n := 0
	for n < spec.RequestBytes {
		req.AddMessage(spec.Topic, 0, &sarama.Message{Version: 1, Value: value, Timestamp: time.Now()})
		n += len(value)
	}
	resp, err := b.Produce(req)
	if err != nil {
		return 0, 0, err
	}
	if blk := resp.GetBlock(spec.Topic, 0); blk == nil || !errors.Is(blk.Err, sarama.ErrNoError) {
		return 0, 0, fmt.Errorf("produce to %s: %+v", spec.Topic, blk)
	}
	return n, resp.ThrottleTime, nil
}

func quotaFetch(b *sarama.Broker, spec QuotaClientSpec, offset int64) (int, time.Duration, int64, error) {
	req := &sarama.FetchRequest{Version: 3, MaxWaitTime: 500, MinBytes: 1, MaxBytes: int32(spec.RequestBytes)}
	req.AddBlock(spec.Topic, 0, offset, int32(spec.RequestBytes), -1)
	resp, err := b.Fetch(req)
	if err != nil {
		return 0, 0, offset, err
	}
	blk := resp.GetBlock(spec.Topic, 0)
	if blk == nil || !errors.Is(blk.Err, sarama.ErrNoError) {
		return 0, 0, offset, fmt.Errorf("fetch from %s: %+v", spec.Topic, blk)
	}
	n := 0
	for _, rs := range blk.RecordsSet {
		if rs.MsgSet == nil {
			continue
		}
		for _, m := range rs.MsgSet.Messages {
			if m.Offset < offset || m.Msg == nil {
				continue
			}
			n += len(m.Msg.Value)
			offset = m.Offset + 1
		}
	}
	return n, resp.ThrottleTime, offset, nil
}

// Wait waits for a client with a Limit to reach it (or fail) and returns its error.
func (c *QuotaClient) Wait(ctx context.Context) error {
	select {
	case <-c.done:
	case <-ctx.Done():
		c.cancel()
		<-c.done
		return ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// RecordOverhead is the bytes a message of format v1 without a key adds to its value in a log
// or a fetch response: offset, size, crc, magic, attributes, timestamp, key and value lengths.
const RecordOverhead = 34

// Stop ends the client and returns its error, if any.
func (c *QuotaClient) Stop() error {
	c.cancel()
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Err is the error that stopped the client, if it stopped.
func (c *QuotaClient) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// FirstThrottled is when the first response with throttle_time_ms > 0 arrived.
func (c *QuotaClient) FirstThrottled() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.samples {
		if s.Throttle > 0 {
			return s.At, true
		}
	}
	return time.Time{}, false
}

// Total is the payload bytes of every response so far.
func (c *QuotaClient) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, s := range c.samples {
		n += s.Bytes
	}
	return n
}

// RateStats is what a QuotaClient saw in a period: payload bytes/s, the responses, those
// throttled, and the largest throttle time.
type RateStats struct {
	Rate                 float64
	Responses, Throttled int
	MaxThrottle          time.Duration
}

func (r RateStats) String() string {
	return fmt.Sprintf("%.3f MiB/s, %d responses, %d throttled (max %v)", r.Rate/(1<<20), r.Responses, r.Throttled, r.MaxThrottle)
}

// Between is what arrived in (from, to].
func (c *QuotaClient) Between(from, to time.Time) RateStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	var st RateStats
	bytes := 0
	for _, s := range c.samples {
		if !s.At.After(from) || s.At.After(to) {
			continue
		}
		bytes += s.Bytes
		st.Responses++
		if s.Throttle > 0 {
			st.Throttled++
			st.MaxThrottle = max(st.MaxThrottle, s.Throttle)
		}
	}
	st.Rate = float64(bytes) / to.Sub(from).Seconds()
	return st
}
