package zkoffsets

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/tools/commandline"
	"github.com/zkafka/zkafka/zk/zkutils"
)

func connect(zkConnect string, log *logrus.Entry) (*zkutils.ZkUtils, error) {
	return commandline.ConnectZk(zkConnect, 30*time.Second, 30*time.Second, log.WithField("logger", "kafka.utils.ZkUtils"), common.SystemTime{})
}

// Export is kafka.tools.ExportZkOffsets: every offset of the given groups (all groups if none)
// to --output-file.
//
// Kafka 0.10.2: ExportZkOffsets.main.
func Export(_ context.Context, args []string, stdout, stderr io.Writer) int {
	log := commandline.ToolsLogger(stderr, "kafka.tools.ExportZkOffsets$")
	p := commandline.NewOptionParser()
	zkConnectOpt := p.Accepts("zkconnect", "ZooKeeper connect string.").WithRequiredArg().DefaultsTo("localhost:2181")
	groupOpt := p.Accepts("group", "Consumer group.").WithRequiredArg()
	outFileOpt := p.Accepts("output-file", "Output file").WithRequiredArg()
	helpOpt := p.Accepts("help", "Print this message.")
	if len(args) == 0 {
		return commandline.Fail(stderr, commandline.PrintUsageAndDie(p, "Export consumer offsets to an output file."))
	}
	opts, err := p.Parse(args...)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	if opts.Has(helpOpt) {
		p.PrintHelpOn(stdout)
		return 0
	}
	if err := commandline.CheckRequiredArgs(p, opts, zkConnectOpt, outFileOpt); err != nil {
		return commandline.Fail(stderr, err)
	}
	f, err := os.Create(opts.ValueOf(outFileOpt))
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" java.io.FileNotFoundException: %v\n", err)
		return 1
	}
	w := bufio.NewWriter(f)
	defer func() {
		_ = w.Flush()
		_ = f.Close()
	}()
	zk, err := connect(opts.ValueOf(zkConnectOpt), log)
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}
	defer zk.Close()
	groups := opts.ValuesOf(groupOpt)
	if len(groups) == 0 {
		if groups, err = zk.GetChildren(zkutils.ConsumersPath); err != nil {
			fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
			return 1
		}
	}
	for _, g := range groups {
		topics, err := zk.GetChildren(fmt.Sprintf("/consumers/%s/offsets", g))
		if err != nil {
			fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
			return 1
		}
		for _, t := range topics {
			parts, err := zk.GetChildrenParentMayNotExist(fmt.Sprintf("/consumers/%s/offsets/%s", g, t))
			if err != nil {
				fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
				return 1
			}
			for _, p := range parts {
				path := zkutils.NewZKGroupTopicDirs(g, t).ConsumerOffsetDir() + "/" + p
				data, _, ok, err := zk.ReadDataMaybeNull(path)
				if err != nil || !ok {
					log.Errorf("Could not retrieve offset value from %s", path)
					continue
				}
				fmt.Fprintf(w, "%s:%s\n", path, data)
				log.Debugf("%s => %s", path, data)
			}
		}
	}
	return 0
}

// Import is kafka.tools.ImportZkOffsets: each "path:offset" line of --input-file is written to
// its path (created if missing); the file ends at the first empty line, as in Kafka.
//
// Kafka 0.10.2: ImportZkOffsets.main.
func Import(_ context.Context, args []string, stdout, stderr io.Writer) int {
	log := commandline.ToolsLogger(stderr, "kafka.tools.ImportZkOffsets$")
	p := commandline.NewOptionParser()
	zkConnectOpt := p.Accepts("zkconnect", "ZooKeeper connect string.").WithRequiredArg().DefaultsTo("localhost:2181")
	inFileOpt := p.Accepts("input-file", "Input file").WithRequiredArg()
	helpOpt := p.Accepts("help", "Print this message.")
	if len(args) == 0 {
		return commandline.Fail(stderr, commandline.PrintUsageAndDie(p, "Import offsets to zookeeper from files."))
	}
	opts, err := p.Parse(args...)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	if opts.Has(helpOpt) {
		p.PrintHelpOn(stdout)
		return 0
	}
	if err := commandline.CheckRequiredArgs(p, opts, inFileOpt); err != nil {
		return commandline.Fail(stderr, err)
	}
	zk, err := connect(opts.ValueOf(zkConnectOpt), log)
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}
	defer zk.Close()
	f, err := os.Open(opts.ValueOf(inFileOpt))
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" java.io.FileNotFoundException: %v\n", err)
		return 1
	}
	defer f.Close()
	type entry struct{ path, offset string }
	var entries []entry
	index := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			break
		}
		path, offset, ok := strings.Cut(line, ":")
		if !ok {
			fmt.Fprintf(stderr, "Exception in thread \"main\" java.lang.ArrayIndexOutOfBoundsException: 1 (line %q)\n", line)
			return 1
		}
		offset, _, _ = strings.Cut(offset, ":")
		log.Debugf("adding node path [%s]", line)
		if i, seen := index[path]; seen {
			entries[i].offset = offset
			continue
		}
		index[path] = len(entries)
		entries = append(entries, entry{path, offset})
	}
	for _, e := range entries {
		log.Debugf("updating [%s] with offset [%s]", e.path, e.offset)
		if err := zk.UpdatePersistentPath(e.path, []byte(e.offset)); err != nil {
			fmt.Fprintln(stderr, err)
		}
	}
	return 0
}
