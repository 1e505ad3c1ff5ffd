package ensemble

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rssKiB is vmRSS without a *testing.T.
func rssKiB(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb
		}
	}
	return 0
}

// BenchmarkStart3 measures the time for a 3-server ensemble to serve (one
// leader, two followers) and the resident memory per JVM once it does.
// Run: go test -run '^$' -bench Start3 -benchtime 3x ./zk/ensemble
func BenchmarkStart3(b *testing.B) {
	var total time.Duration
	var rss, maxRSS int
	for i := 0; i < b.N; i++ {
		begin := time.Now()
		e, err := Start(context.Background(), Config{Servers: 3})
		if err != nil {
			b.Fatal(err)
		}
		total += time.Since(begin)
		for n := 0; n < 3; n++ {
			r := rssKiB(e.PID(n))
			rss += r
			maxRSS = max(maxRSS, r)
		}
		e.Close()
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/start")
	b.ReportMetric(float64(rss)/float64(3*b.N)/1024, "MiB-RSS/node")
	b.ReportMetric(float64(maxRSS)/1024, "MiB-maxRSS")
}
