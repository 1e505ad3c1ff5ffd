// Command gen writes the typed protocol codecs of package protocol from the schema table in
// clients/protocol/schema: one file per API key, zz_generated_NN_<api>.go, plus
// zz_generated_registry.go. Run it with `go generate ./clients/protocol/...`.
//
// Kafka 0.10.2 interprets Protocol.java's table at run time (types.Schema.read/write into a
// generic Struct) and wraps each Struct in a hand-written class in common.requests. zkafka
// generates the wrapper and the codec together instead (the step Kafka itself took in 2.2 with
// its JSON message specs): one Go struct per message holds the union of the fields of every
// version, and versioned appendTo/readFrom methods switch on the version where the layouts
// differ. The schema table stays the truth; this program only spells it out.
//
// Kafka 0.10.2: no Kafka class; it replaces the runtime interpretation of Protocol.java
// (clients/src/main/java/org/apache/kafka/common/protocol/Protocol.java) by generated code.
//
// Generated names: a message is its common.requests class name (ListOffsetRequest, not
// ListOffsetsRequest); a nested struct is its parent struct's name plus the role the api table's
// override column gives it (ProduceRequestTopic, ProduceRequestTopicPartition), or, without a
// row, the message name plus the Go field name (the parent struct's name plus the field name
// when that would collide); Go field names are the wire names in CamelCase with "id" as "ID". A
// field that a later version adds is placed where that version puts it on the wire.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	out := flag.String("out", ".", "directory of package protocol")
	flag.Parse()
	files, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := writeFiles(*out, files); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// writeFiles replaces every zz_generated_*.go in dir by files.
func writeFiles(dir string, files map[string][]byte) error {
	old, err := filepath.Glob(filepath.Join(dir, "zz_generated_*.go"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if _, keep := files[filepath.Base(f)]; !keep {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		if cur, err := os.ReadFile(p); err == nil && bytes.Equal(cur, files[n]) {
			continue
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// goName turns a wire field name into a Go identifier: topic_data -> TopicData, node_id -> NodeID.
func goName(wire string) string {
	var b strings.Builder
	for _, part := range strings.Split(wire, "_") {
		if part == "" {
			continue
		}
		if part == "id" {
			b.WriteString("ID")
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}
