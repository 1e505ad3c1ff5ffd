package interop

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/record"
)

// TestKcatConsumesZkafkaMessageSets is the librdkafka counterpart of the sarama test: kcat (when
// installed) reads every magic/codec set zkafka built through the same fake broker. librdkafka
// also reads the magic-0 LZ4 framing that sarama rejects.
func TestKcatConsumesZkafkaMessageSets(t *testing.T) {
	if _, err := exec.LookPath("kcat"); err != nil {
		t.Skipf("kcat not installed: %v", err)
	}
	for _, magic := range []int8{record.MagicValueV0, record.MagicValueV1} {
		for _, codec := range []record.CompressionType{record.NONE, record.GZIP, record.SNAPPY, record.LZ4} {
			t.Run(fmt.Sprintf("magic%d-%s", magic, codec), func(t *testing.T) {
				set := buildSet(t, magic, codec, record.CreateTime)
				broker := startFakeBroker(t, interopTopic, set, baseOffset, baseOffset+interopCount)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				// -Z prints null keys as NULL, so null and empty stay distinct; fields are split
				// on a tab (no message contains one).
				cmd := exec.CommandContext(ctx, "kcat", "-b", broker.addr(), "-C", "-t", interopTopic,
					"-p", "0", "-o", fmt.Sprint(baseOffset), "-c", fmt.Sprint(interopCount), "-e", "-Z",
					"-f", "%o\t%k\t%s\t%T\n", "-X", "api.version.request=true")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("kcat: %v\n%s", err, out)
				}
				var lines []string
				for _, l := range strings.Split(string(out), "\n") {
					if strings.Count(l, "\t") == 3 {
						lines = append(lines, l)
					}
				}
				if len(lines) != interopCount {
					t.Fatalf("kcat printed %d messages, want %d:\n%s", len(lines), interopCount, out)
				}
				for i, l := range lines {
					key, value := interopMessage(i)
					wantKey := string(key)
					if key == nil {
						wantKey = "NULL"
					}
					wantValue := string(value)
					if len(value) == 0 {
						// librdkafka hands an empty payload over as a NULL pointer, so kcat
						// prints it like a null one; sarama's test tells the two apart.
						wantValue = "NULL"
					}
					ts := int64(0) // kcat prints 0 when librdkafka has no timestamp (magic 0)
					if magic == record.MagicValueV1 {
						ts = baseTimestamp + int64(i)*7
					}
					want := fmt.Sprintf("%d\t%s\t%s\t%d", baseOffset+i, wantKey, wantValue, ts)
					if l != want {
						t.Errorf("message %d: %q, want %q", i, l, want)
					}
				}
			})
		}
	}
}
