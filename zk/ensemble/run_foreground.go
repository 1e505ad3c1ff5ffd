package ensemble

import (
	"context"
	"fmt"
	"os"
	"time"
)

// RunForeground starts an ensemble, prints its connect string on a line of
// its own to cfg.Stdout (nil means os.Stdout), then a line containing
// "serving", and blocks until ctx is done or a node exits on its
// own; it then stops every node with SIGTERM and closes the ensemble.
// `zkafka zookeeper-server-start` and `make run` use it, e.g. with
// Config{Servers: 1, ClientPorts: []int{2181}, BaseDir: "data/zookeeper", KeepDir: true}.
//
// Kafka 0.10.2: bin/zookeeper-server-start.sh, which runs QuorumPeerMain in
// the foreground.
func RunForeground(ctx context.Context, cfg Config) error {
	out := cfg.Stdout
	if out == nil {
		out = os.Stdout
	}
	e, err := Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	fmt.Fprintln(out, e.ConnectString())
	mode, _ := e.Mode(0)
	fmt.Fprintf(out, "zk/ensemble: serving (%d server(s), node 0 %s); files under %s\n", e.Size(), mode, e.BaseDir())
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			var firstErr error
			for i := 0; i < e.Size(); i++ {
				if e.PID(i) == 0 {
					continue
				}
				if err := e.Stop(i); err != nil && firstErr == nil {
					firstErr = err
				}
			}
			return firstErr
		case <-tick.C:
			for i := 0; i < e.Size(); i++ {
				if err := e.exitError(i); err != nil {
					return err
				}
			}
		}
	}
}
