package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"sort"
	"syscall"

	cli "github.com/urfave/cli/v2"

	"github.com/zkafka/zkafka/tools/acls"
	"github.com/zkafka/zkafka/tools/brokerapiversions"
	"github.com/zkafka/zkafka/tools/configs"
	"github.com/zkafka/zkafka/tools/consoleconsumer"
	"github.com/zkafka/zkafka/tools/consoleproducer"
	"github.com/zkafka/zkafka/tools/consumergroups"
	"github.com/zkafka/zkafka/tools/dumplogsegments"
	"github.com/zkafka/zkafka/tools/getoffsetshell"
	"github.com/zkafka/zkafka/tools/mirrormaker"
	"github.com/zkafka/zkafka/tools/offsetchecker"
	"github.com/zkafka/zkafka/tools/perf"
	"github.com/zkafka/zkafka/tools/preferredelection"
	"github.com/zkafka/zkafka/tools/reassign"
	"github.com/zkafka/zkafka/tools/replaylogproducer"
	"github.com/zkafka/zkafka/tools/replicaverification"
	"github.com/zkafka/zkafka/tools/serverstart"
	"github.com/zkafka/zkafka/tools/serverstop"
	"github.com/zkafka/zkafka/tools/simpleconsumershell"
	"github.com/zkafka/zkafka/tools/topics"
	"github.com/zkafka/zkafka/tools/verifiable"
	"github.com/zkafka/zkafka/tools/zksecuritymigration"
	"github.com/zkafka/zkafka/tools/zkshell"
	"github.com/zkafka/zkafka/tools/zookeeperserver"
)

// exitError carries a Kafka tool's exit code out of a subcommand.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// commands returns the implemented subcommands, keyed by subcommand name. Each entry takes the raw
// arguments after the subcommand (Kafka's tools parse their own options with jopt-simple; zkafka's
// tools do the same in tools/<command>, so flags keep Kafka's spelling and error messages).
func commands() map[string]func(args []string, stdout, stderr io.Writer) int {
	return map[string]func([]string, io.Writer, io.Writer) int{
		"zookeeper-server-start": zookeeperserver.Start,
		"zookeeper-server-stop":  zookeeperserver.Stop,
		"zookeeper-shell": func(args []string, stdout, stderr io.Writer) int {
			return zkshell.RunWithInput(context.Background(), args, os.Stdin, stdout, stderr)
		},
		"topics":                       adminTool(topics.Run),
		"reassign-partitions":          adminTool(reassign.Run),
		"preferred-replica-election":   adminTool(preferredelection.Run),
		"configs":                      adminTool(configs.Run),
		"acls":                         adminTool(acls.Run),
		"zookeeper-security-migration": adminTool(zksecuritymigration.Run),
		"broker-api-versions":          adminTool(brokerapiversions.Run),
		"get-offset-shell":             adminTool(getoffsetshell.Run),
		"consumer-groups":              adminTool(consumergroups.Run),
		"console-consumer":             adminTool(consoleconsumer.RunWithSignals(consoleconsumer.Deps{NewShinyConsumer: newShinyConsumer})),
		"simple-consumer-shell":        adminTool(simpleconsumershell.Run),
		"replica-verification":         adminTool(replicaverification.Run),
		"consumer-offset-checker":      adminTool(offsetchecker.Run),
		"mirror-maker":                 adminTool(mirrormaker.Run),
		"replay-log-producer":          adminTool(replaylogproducer.Run),
		"consumer-perf-test": adminTool(func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
			return perf.RunConsumerPerformanceWith(ctx, args, stdout, stderr, perf.Deps{NewConsumer: perf.NewConsumerConsume})
		}),
		"producer-perf-test":  perfTool(perf.RunProducerPerformance),
		"console-producer":    interruptible(consoleproducer.Run),
		"verifiable-producer": interruptible(verifiable.Run),
		"verifiable-consumer": interruptible(verifiable.RunConsumer),
		"dump-log-segments":   dumplogsegments.Main,
		"server-start":        serverstart.Run,
		"server-stop":         serverstop.Run,
	}
}

// interruptible runs a tool whose context ends on SIGINT or SIGTERM, so that it can close its
// producer (sending what is buffered) as the JVM's shutdown hooks do.
func interruptible(run func(context.Context, []string, io.Writer, io.Writer) int) func([]string, io.Writer, io.Writer) int {
	return func(args []string, stdout, stderr io.Writer) int {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return run(ctx, args, stdout, stderr)
	}
}

// perfTool runs a tool that holds a producer's whole buffer.memory in a tight loop with the
// garbage collector at GOGC=40 (unless GOGC or GOMEMLIMIT is set): its live heap is the buffer
// plus a future and a callback per buffered record, and the default GOGC=100 would let the heap
// grow to twice that. This plays the part of the -Xmx512M kafka-producer-perf-test.sh gives the
// JVM: memory bounded at a little CPU cost (docs/deviations.md).
func perfTool(run func(context.Context, []string, io.Writer, io.Writer) int) func([]string, io.Writer, io.Writer) int {
	return func(args []string, stdout, stderr io.Writer) int {
		if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
			debug.SetGCPercent(40)
		}
		return run(context.Background(), args, stdout, stderr)
	}
}

// adminTool adapts an admin tool's Run to the commands() signature.
func adminTool(run func(context.Context, []string, io.Writer, io.Writer) int) func([]string, io.Writer, io.Writer) int {
	return func(args []string, stdout, stderr io.Writer) int {
		return run(context.Background(), args, stdout, stderr)
	}
}

// run builds the urfave/cli application and runs it; it returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	app := &cli.App{
		Name:                      "zkafka",
		Usage:                     "Kafka 0.10.2's ZooKeeper-based broker, controller, clients and tools, in Go",
		Writer:                    stdout,
		ErrWriter:                 stderr,
		DisableSliceFlagSeparator: true,
		HideHelpCommand:           false,
		ExitErrHandler:            func(*cli.Context, error) {},
	}
	for _, s := range scriptTable {
		s := s
		c := &cli.Command{
			Name:            s.Subcommand,
			Usage:           usageOf(s),
			SkipFlagParsing: true, // each tool parses Kafka's options itself
			HideHelp:        true,
		}
		switch {
		case s.Subcommand == "run-class":
			c.Action = func(ctx *cli.Context) error {
				return codeErr(runClass(ctx.Args().Slice(), stdout, stderr))
			}
		case cmds[s.Subcommand] != nil:
			f := cmds[s.Subcommand]
			c.Action = func(ctx *cli.Context) error { return codeErr(f(ctx.Args().Slice(), stdout, stderr)) }
		default:
			c.Action = func(*cli.Context) error {
				fmt.Fprintf(stderr, "%s (%s) is not implemented in zkafka yet (%s).\n", s.Name, s.Subcommand, s.Status)
				return exitError{1}
			}
		}
		app.Commands = append(app.Commands, c)
	}
	app.Commands = append(app.Commands, &cli.Command{
		Name:  "gen-scripts",
		Usage: "write the bin/*.sh wrappers from the script table",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Value: "bin", Usage: "output directory"},
			&cli.BoolFlag{Name: "links", Usage: "write symbolic links to zkafka (in the same directory) instead of shell wrappers"},
		},
		Action: func(ctx *cli.Context) error {
			if ctx.Bool("links") {
				return genScriptLinks(ctx.String("out"))
			}
			return genScripts(ctx.String("out"))
		},
	})
	sort.Slice(app.Commands, func(i, j int) bool { return app.Commands[i].Name < app.Commands[j].Name })
	if err := app.Run(args); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

func codeErr(code int) error {
	if code == 0 {
		return nil
	}
	return exitError{code}
}

func usageOf(s Script) string {
	if s.MainClass == "" {
		return s.Name
	}
	return s.Name + " (" + s.MainClass + ")"
}

// genScripts writes one wrapper per script-table row into dir.
func genScripts(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, s := range scriptTable {
		if err := os.WriteFile(filepath.Join(dir, s.Name), []byte(wrapperScript(s)), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// genScriptLinks writes one symbolic link per script-table row into dir, each pointing at
// zkafka in the same directory (scriptArgs maps the link's name back to the subcommand).
func genScriptLinks(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, s := range scriptTable {
		p := filepath.Join(dir, s.Name)
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if err := os.Symlink("zkafka", p); err != nil {
			return err
		}
	}
	return nil
}

// scriptArgs rewrites the arguments of a process started under a script's name
// ([.../kafka-topics.sh --list ...]) into the subcommand form ([... topics --list ...]); other
// arguments are returned unchanged.
func scriptArgs(args []string) []string {
	if len(args) == 0 {
		return args
	}
	name := filepath.Base(args[0])
	for _, s := range scriptTable {
		if s.Name == name {
			return append([]string{args[0], s.Subcommand}, args[1:]...)
		}
	}
	return args
}
