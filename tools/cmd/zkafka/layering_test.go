package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/zkafka/zkafka/"

// ranks is docs/design.md §1.1: a package may import only module packages of a strictly lower rank.
// Test-support packages (zktest, clientstest, integration harness) are only imported from tests,
// which `go list -deps` of non-test builds does not follow.
var ranks = map[string]int{
	"clients/common": 0, "clients/serialization": 0, "clients/security/auth": 0, "core/metrics": 0,
	"zk/zkclient": 0, "zk/ensemble": 0,
	"clients/config": 1, "clients/metrics": 1, "clients/record": 1, "clients/protocol/types": 1,
	"zk/zkutils": 1, "core/utils": 1, "core/server/brokerstate": 1, "zk/zktest": 1,
	"clients/protocol/schema": 2, "clients/network": 2, "core/utils/timer": 2, "core/utils/log4j": 2,
	"clients/protocol": 3,
	"clients/security": 4, "clients/oldclient": 4,
	"clients":          5,
	"clients/producer": 6, "clients/consumer": 6, "core/server/config": 6, "core/server/purgatory": 6,
	"clients/clientstest": 6,
	"core/log":            7, "clients/oldproducer": 7,
	"core/cluster":        8,
	"core/server/fetcher": 9, "core/network": 9, "core/admin": 9,
	"core/security": 10, "core/security/auth": 10, "core/coordinator": 10, "core/controller": 10,
	"clients/oldconsumer": 10,
	"core/server":         11,
	"core/integration":    12, "systemtests": 12,
}

// rankOf returns the rank of a module-relative package path; tools/* are rank 12, and a package
// nested under a ranked one (internal helpers, generators) takes its parent's rank.
func rankOf(rel string) (int, bool) {
	if strings.HasPrefix(rel, "tools/") {
		return 12, true
	}
	for p := rel; p != "."; {
		if r, ok := ranks[p]; ok {
			return r, true
		}
		i := strings.LastIndex(p, "/")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return 0, false
}

// TestLayering runs `go list` over the module and fails on any import that breaks docs/design.md §1.1.
func TestLayering(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		from := strings.TrimPrefix(f[0], module)
		fromRank, ok := rankOf(from)
		if !ok {
			t.Errorf("package %s has no rank in docs/design.md §1.1 (add it to the table and to this test)", from)
			continue
		}
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, module) {
				if imp == "github.com/go-zookeeper/zk" && from != "zk/zkclient" && from != "zk/zktest" {
					t.Errorf("%s imports go-zookeeper; only zk/zkclient and zk/zktest may", from)
				}
				continue
			}
			to := strings.TrimPrefix(imp, module)
			toRank, ok := rankOf(to)
			if !ok {
				continue // reported when the package itself is listed
			}
			if strings.HasPrefix(to, from+"/") {
				continue // a package may use its own internal helpers
			}
			if strings.HasPrefix(from, "systemtests/") && to == "systemtests" {
				continue // the process-level harness's own programs (benchbroker) use the harness
			}
			if strings.HasPrefix(from, "tools/") && strings.HasPrefix(to, "tools/") {
				// B.6: a binary (tools/cmd/*: zkafka, zkafka-docker) wires its tools; a tool
				// imports only tools/commandline.
				if !strings.HasPrefix(from, "tools/cmd/") && to != "tools/commandline" {
					t.Errorf("%s imports sibling tool %s; tools/* may import only tools/commandline", from, to)
				}
				continue
			}
			if strings.HasPrefix(from, "core/") && strings.HasPrefix(to, "clients/old") {
				// B.4's deliberately absent edge: the broker's own clients use clients.NetworkClient.
				t.Errorf("%s imports %s: the broker does not use the Scala clients' plumbing", from, to)
			}
			if toRank >= fromRank {
				t.Errorf("%s (rank %d) imports %s (rank %d): docs/design.md §1.1 allows only lower ranks", from, fromRank, to, toRank)
			}
		}
	}
}
