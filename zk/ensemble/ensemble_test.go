package ensemble

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func testContext(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestStandaloneStartStop(t *testing.T) {
	begin := time.Now()
	e, err := Start(testContext(t, 90*time.Second), Config{Servers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	t.Logf("standalone start: %v, connect %s", time.Since(begin), e.ConnectString())
	if e.Size() != 1 {
		t.Fatalf("Size = %d", e.Size())
	}
	mode, err := e.Mode(0)
	if err != nil || mode != ModeStandalone {
		t.Fatalf("Mode = %q, %v", mode, err)
	}
	if i, err := e.Leader(); err != nil || i != 0 {
		t.Fatalf("Leader = %d, %v", i, err)
	}
	if !strings.HasPrefix(e.ConnectString(), "127.0.0.1:") || strings.Contains(e.ConnectString(), ",") {
		t.Fatalf("ConnectString = %q", e.ConnectString())
	}
	pid := e.PID(0)
	if pid == 0 {
		t.Fatal("PID = 0 while running")
	}
	stopBegin := time.Now()
	if err := e.Stop(0); err != nil {
		t.Fatal(err)
	}
	t.Logf("Stop (SIGTERM) took %v", time.Since(stopBegin))
	if e.PID(0) != 0 {
		t.Fatal("PID != 0 after Stop")
	}
	if _, err := e.Mode(0); err == nil {
		t.Fatal("Mode answered after Stop")
	}
	restartBegin := time.Now()
	if err := e.Restart(testContext(t, 60*time.Second), 0); err != nil {
		t.Fatal(err)
	}
	t.Logf("Restart took %v", time.Since(restartBegin))
	if mode, err := e.Mode(0); err != nil || mode != ModeStandalone {
		t.Fatalf("Mode after Restart = %q, %v", mode, err)
	}
	dir := e.BaseDir()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("BaseDir %s still there after Close: %v", dir, err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}
