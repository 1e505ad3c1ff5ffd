package zkoffsets

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, 1, goleak.IgnoreTopFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick")))
}

// TestExportImportRoundTrip: offsets exported from one chroot in Kafka's line format are
// imported into another.
func TestExportImportRoundTrip(t *testing.T) {
	src, dst := zktest.Chroot(t), zktest.Chroot(t)
	zs, err := zkutils.Connect(src, 10*time.Second, 10*time.Second, false, nil, common.SystemTime{})
	if err != nil {
		t.Fatal(err)
	}
	defer zs.Close()
	for _, o := range []struct {
		g, t   string
		p      int32
		offset int64
	}{{"g1", "a", 0, 5}, {"g1", "a", 1, 7}, {"g2", "b", 0, 42}} {
		if err := zs.UpdateConsumerOffset(o.g, common.TopicPartition{Topic: o.t, Partition: o.p}, o.offset); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "offsets")
	var out, errOut bytes.Buffer
	if code := Export(context.Background(), []string{"--zkconnect", src, "--output-file", file}, &out, &errOut); code != 0 {
		t.Fatalf("export %d %s", code, errOut.String())
	}
	data, _ := os.ReadFile(file)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	want := map[string]bool{"/consumers/g1/offsets/a/0:5": true, "/consumers/g1/offsets/a/1:7": true, "/consumers/g2/offsets/b/0:42": true}
	if len(lines) != 3 || !want[lines[0]] || !want[lines[1]] || !want[lines[2]] {
		t.Fatalf("exported %q", data)
	}
	if code := Import(context.Background(), []string{"--zkconnect", dst, "--input-file", file}, &out, &errOut); code != 0 {
		t.Fatalf("import %d %s", code, errOut.String())
	}
	zd, err := zkutils.Connect(dst, 10*time.Second, 10*time.Second, false, nil, common.SystemTime{})
	if err != nil {
		t.Fatal(err)
	}
	defer zd.Close()
	if o, ok, err := zd.ReadConsumerOffset("g2", common.TopicPartition{Topic: "b", Partition: 0}); err != nil || !ok || o != 42 {
		t.Fatalf("imported %d %v %v", o, ok, err)
	}
	if code := Export(context.Background(), []string{"--zkconnect", src, "--group", "g2", "--output-file", file}, &out, &errOut); code != 0 {
		t.Fatal(errOut.String())
	}
	if data, _ := os.ReadFile(file); string(data) != "/consumers/g2/offsets/b/0:42\n" {
		t.Fatalf("one group: %q", data)
	}
}
