package systemtests

import (
	"os"
	"path/filepath"
	"testing"
)

// parseStrace on strace 6.1 output, including a call split across threads.
func TestParseStrace(t *testing.T) {
	out := `15134 sendfile(4<TCP:[127.0.0.1:42764->127.0.0.1:41223]>, 6</tmp/x.log>, [0] => [3000000], 3000000) = 3000000
15134 sendfile(4<TCP:[127.0.0.1:42764->127.0.0.1:41223]>, 6</tmp/x.log>, [3000000], 3000000) = 0
15135 write(7<TCP:[127.0.0.1:9092->127.0.0.1:5000]>, "\0\0\0\20"..., 70000 <unfinished ...>
15136 pwrite64(9</data/t-0/00000000000000000000.log>, "\0\0"..., 5000000, 0) = 5000000
15136 write(9</data/t-0/00000000000000000000.log>, "\0\0"..., 1000000) = 1000000
15135 <... write resumed>) = 70000
15137 writev(7<TCP:[127.0.0.1:9092->127.0.0.1:5000]>, [{iov_base="a", iov_len=10}], 1) = 10
15137 sendfile(8<TCPv6:[[::1]:9092->[::1]:5000]>, 6</tmp/x.log>, [0], 100 <unfinished ...>
15138 +++ exited with 0 +++
15137 <... sendfile resumed>) = 100
`
	p := filepath.Join(t.TempDir(), "strace.out")
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := parseStrace(p)
	if err != nil {
		t.Fatal(err)
	}
	want := syscallBytes{sendfile: 3000100, sendfileCalls: 2, socketWrite: 70010, socketCalls: 2, maxSocketWrite: 70000}
	if r != want {
		t.Fatalf("parseStrace = %+v, want %+v", r, want)
	}
}
