package systemtests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ModuleRoot returns the directory of the zkafka go.mod, found with `go env GOMOD` from the
// current directory (a test runs in its package directory, inside the module).
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside a Go module")
	}
	return filepath.Dir(gomod), nil
}

// BuildZkafka builds ./tools/cmd/zkafka of the module at moduleRoot into outDir and returns the
// binary's path. ZKAFKA_BIN, when set, names a binary to use instead (no build).
func BuildZkafka(ctx context.Context, moduleRoot, outDir string) (string, error) {
	if bin := os.Getenv("ZKAFKA_BIN"); bin != "" {
		return bin, nil
	}
	bin := filepath.Join(outDir, "zkafka")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./tools/cmd/zkafka")
	cmd.Dir = moduleRoot
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./tools/cmd/zkafka: %w\n%s", err, out.String())
	}
	return bin, nil
}

// ServerStartAvailable reports whether bin implements `server-start`: the subcommand run without
// arguments must print kafka.Kafka's usage, not the script table's "not implemented" line. The
// second result says why not.
func ServerStartAvailable(bin string) (bool, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, bin, "server-start").CombinedOutput()
	if bytes.Contains(out, []byte("not implemented")) {
		return false, strings.TrimSpace(string(out))
	}
	return true, ""
}
