package oldproducer

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/zk/zktest"
)

// TestMain runs one real ZooKeeper for the package. go-metrics' meter arbiter (started by the
// broker's and sarama's registries) is a process-wide goroutine that never stops.
func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, 1, goleak.IgnoreTopFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick")))
}
