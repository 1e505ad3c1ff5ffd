//go:build unix

package network

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// The benchmarks drive a SocketServer (with handlers that answer every request with an 8-byte
// frame carrying its correlation id) from a client in a child process, as a broker is driven, so
// that the server's CPU time per request (getrusage of this process, reported as cpu-ns/op) is
// not mixed with the client's and the two do not share one Go scheduler.

const benchClientEnv = "ZKAFKA_NETWORK_BENCH_CLIENT" // "roundtrip|large addr n"

// TestBenchClient is the child process of the benchmarks; it does nothing in a normal test run.
func TestBenchClient(t *testing.T) {
	spec := os.Getenv(benchClientEnv)
	if spec == "" {
		t.Skip("benchmark helper process")
	}
	var mode, addr string
	var n int
	if _, err := fmt.Sscan(spec, &mode, &addr, &n); err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	switch mode {
	case "roundtrip": // one small request at a time, like a synchronous client
		req := frame(18, 0, 0, "bench", nil)
		resp := make([]byte, 8)
		for i := 0; i < n; i++ {
			binary.BigEndian.PutUint32(req[8:], uint32(i))
			if _, err := c.Write(req); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(c, resp); err != nil {
				t.Fatal(err)
			}
			if binary.BigEndian.Uint32(resp[4:]) != uint32(i) {
				t.Fatalf("response %d out of order", i)
			}
		}
	case "large": // pipelined 512 KiB requests, like a producer's batches
		req := frame(18, 0, 0, "bench", make([]byte, 512<<10))
		done := make(chan error, 1)
		go func() {
			resp := make([]byte, 8)
			for i := 0; i < n; i++ {
				if _, err := io.ReadFull(c, resp); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
		for i := 0; i < n; i++ {
			if _, err := c.Write(req); err != nil {
				t.Fatal(err)
			}
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// usage is this process's CPU time and context switches (voluntary and not) so far.
func usage() (time.Duration, int64) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Nvcsw + ru.Nivcsw
}

func runBenchClient(b *testing.B, mode string, bytesPerOp int64) {
	ss := startHandlerServer(b, nil, func(req *Request) Send { return echoCorrelation(req, nil) })
	cmd := exec.Command(os.Args[0], "-test.run=^TestBenchClient$")
	cmd.Env = append(os.Environ(), benchClientEnv+"="+mode+" "+addrOf(ss)+" "+strconv.Itoa(b.N))
	if bytesPerOp > 0 {
		b.SetBytes(bytesPerOp)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, cs0 := usage()
	out, err := cmd.CombinedOutput()
	cpu1, cs1 := usage()
	b.StopTimer()
	if err != nil {
		b.Fatalf("client: %v\n%s", err, out)
	}
	b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "server-cpu-ns/op")
	b.ReportMetric(float64(cs1-cs0)/float64(b.N), "server-ctxsw/op")
}

// BenchmarkSocketServerRoundTrip: the network layer's cost per request for a synchronous client.
func BenchmarkSocketServerRoundTrip(b *testing.B) { runBenchClient(b, "roundtrip", 0) }

// BenchmarkSocketServerLargeRequests: MB/s of pipelined 512 KiB requests on one connection.
func BenchmarkSocketServerLargeRequests(b *testing.B) {
	runBenchClient(b, "large", int64(len(frame(18, 0, 0, "bench", make([]byte, 512<<10)))))
}
