package simpleconsumershell

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/tools/internal/brokertest"
	"github.com/zkafka/zkafka/zk/zktest"
)

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, 1, goleak.IgnoreTopFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick")))
}

// startBroker runs broker 0 with topic (partitions) holding n messages "v<i>" keyed "k<i>".
func startBroker(t *testing.T, connect, topic string, partitions int32, n int) string {
	t.Helper()
	b := brokertest.Start(t, connect, 0, nil)
	b.CreateTopic(t, topic, partitions, nil)
	brokertest.Produce(t, []string{b.Addr}, topic, partitions, 0, n)
	return b.Addr
}
