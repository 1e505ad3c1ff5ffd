package server

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/zk/zktest"
)

// saslBroker starts a broker with a SASL_PLAINTEXT listener (PLAIN) and a one-partition topic.
func saslBroker(t testing.TB) (*KafkaServer, string, string) {
	t.Helper()
	connect := zktest.Chroot(t)
	loggers, _ := testLoggers(t)
	jaas := filepath.Join(t.TempDir(), "jaas.conf")
	if err := os.WriteFile(jaas, []byte(saslJaas), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := brokerConfig(t, connect, t.TempDir(), map[string]string{
		"listeners": "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0", "sasl.enabled.mechanisms": "PLAIN",
		"zkafka.jaas.config.file": jaas,
	})
	srv := NewKafkaServer(cfg, nil, loggers, func(string) string { return "" })
	if err := srv.Startup(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	const topic = "garbage"
	if err := admin.NewAdminUtils(srv.ZkUtils(), nil, nil).CreateTopic(topic, 1, 1, nil, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		_, err := srv.ReplicaManager().getLeaderReplicaIfLocal(tpOf(topic, 0))
		return err == nil && srv.MetadataCache().Contains(topic)
	}, "leader of the new partition", 20*time.Second)
	return srv, fmt.Sprintf("127.0.0.1:%d", srv.BoundPort("SASL_PLAINTEXT")), topic
}

// garbageFrames is what a hostile client sends during authentication: random bytes, a handshake
// followed by random tokens, huge size prefixes, truncated frames, other requests.
func garbageFrames(r *rand.Rand) []byte {
	frame := func(b []byte) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(len(b)))
		return append(out, b...)
	}
	handshake := frame([]byte{0, 17, 0, 0, 0, 0, 0, 1, 0, 1, 'g', 0, 5, 'P', 'L', 'A', 'I', 'N'})
	random := make([]byte, r.IntN(200))
	for i := range random {
		random[i] = byte(r.UintN(256))
	}
	switch r.IntN(6) {
	case 0:
		return random
	case 1:
		return append(handshake, frame(random)...)
	case 2:
		return []byte{0x7f, 0xff, 0xff, 0xff, 1, 2, 3}
	case 3:
		return append(handshake, 0, 0, 0x10, 0) // a token announced and never sent
	case 4:
		return frame([]byte{0, 3, 0, 0, 0, 0, 0, 1, 0, 0}) // Metadata before authenticating
	default:
		return append(handshake, frame([]byte("\x00admin\x00"+string(random)))...)
	}
}

// sendGarbage opens n connections, each writing one garbage frame, and closes them all.
func sendGarbage(t testing.TB, addr string, n int, seed uint64) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 100)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			c, err := net.DialTimeout("tcp", addr, 10*time.Second)
			if err != nil {
				return
			}
			defer c.Close()
			r := rand.New(rand.NewPCG(seed, uint64(i)))
			c.SetDeadline(time.Now().Add(2 * time.Second))
			c.Write(garbageFrames(r))
			buf := make([]byte, 512)
			for {
				if _, err := c.Read(buf); err != nil { // until the broker closes it (or the deadline)
					return
				}
			}
		}(i)
	}
	wg.Wait()
}

// TestSaslGarbageConnections: 1,000 connections sending garbage during authentication do not
// crash the broker; an authenticated sarama producer keeps working meanwhile, and the broker
// closes the garbage connections.
func TestSaslGarbageConnections(t *testing.T) {
	srv, addr, topic := saslBroker(t)
	prod, err := sarama.NewSyncProducer([]string{addr}, saslConfig("PLAIN", "alice", "alice-secret"))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	if _, _, err := prod.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder("first")}); err != nil {
		t.Fatal(err)
	}
	baseline := srv.socketServer.ConnectionCount() // the producer's and the controller's own
	done := make(chan struct{})
	go func() {
		defer close(done)
		sendGarbage(t, addr, 1000, 17)
	}()
	sent := 0
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		if _, _, err := prod.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder("ok")}); err != nil {
			t.Fatalf("authenticated producer during the garbage: %v", err)
		}
		sent++
	}
	t.Logf("%d messages produced while 1,000 garbage connections came and went", sent)
	zktest.WaitUntilTrue(t, func() bool { return srv.socketServer.ConnectionCount() <= baseline },
		"the garbage connections closed", 30*time.Second)
}

// BenchmarkSaslProduceUnderGarbage measures an authenticated producer's round trips alone and
// while rounds of 1,000 connections send garbage during authentication, one round a second
// (acceptance: no more than 10% slower; compare the two ns/op figures of interleaved runs,
// -count=5, with -benchtime long enough to span several rounds, e.g. 5s).
func BenchmarkSaslProduceUnderGarbage(b *testing.B) {
	for _, garbage := range []bool{false, true} {
		b.Run(fmt.Sprintf("garbage=%v", garbage), func(b *testing.B) {
			_, addr, topic := saslBroker(b)
			prod, err := sarama.NewSyncProducer([]string{addr}, saslConfig("PLAIN", "alice", "alice-secret"))
			if err != nil {
				b.Fatal(err)
			}
			defer prod.Close()
			stop := make(chan struct{})
			var wg sync.WaitGroup
			if garbage {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// A round of 1,000 garbage connections every second (the next round waits for
					// the last to end): a bounded hostile load, so that the figure is the broker's
					// extra cost rather than a generator spinning on the same two cores.
					tick := time.NewTicker(time.Second)
					defer tick.Stop()
					for seed := uint64(0); ; seed++ {
						sendGarbage(b, addr, 1000, seed)
						select {
						case <-stop:
							return
						case <-tick.C:
						}
					}
				}()
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, err := prod.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder("ok")}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			close(stop)
			wg.Wait()
		})
	}
}
