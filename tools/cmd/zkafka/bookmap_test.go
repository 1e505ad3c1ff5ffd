package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateBookmap = flag.Bool("update-bookmap", false, "rewrite the (planned) marks in docs/bookmap.md from the tree")

// goFileRef matches a Go file named in the bookmap's "Go home" column, with an optional
// " (planned)" mark that says the file does not exist yet.
var goFileRef = regexp.MustCompile(`((?:clients|core|zk|tools|systemtests)/[A-Za-z0-9_/]+\.go)( \(planned\))?`)

// TestBookmapIsTrue keeps docs/bookmap.md true to the tree: every Go file it names without a
// "(planned)" mark exists, and every file marked "(planned)" does not exist yet. Run
// `go test ./tools/cmd/zkafka -run TestBookmapIsTrue -update-bookmap` after code lands.
func TestBookmapIsTrue(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	path := filepath.Join(root, "docs", "bookmap.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	changed := false
	for i, line := range lines {
		cols := strings.Split(line, "|")
		if len(cols) < 6 || !strings.HasPrefix(line, "|") {
			continue
		}
		home := cols[4] // | § | Title | Kafka 0.10.2 | Go home | Notes |
		newHome := goFileRef.ReplaceAllStringFunc(home, func(m string) string {
			sub := goFileRef.FindStringSubmatch(m)
			file, planned := sub[1], sub[2] != ""
			_, statErr := os.Stat(filepath.Join(root, file))
			exists := statErr == nil
			if *updateBookmap {
				if exists {
					return file
				}
				return file + " (planned)"
			}
			if exists && planned {
				t.Errorf("docs/bookmap.md:%d: %s exists but is marked (planned)", i+1, file)
			}
			if !exists && !planned {
				t.Errorf("docs/bookmap.md:%d: %s does not exist; mark it (planned)", i+1, file)
			}
			return m
		})
		if newHome != home {
			cols[4] = newHome
			lines[i] = strings.Join(cols, "|")
			changed = true
		}
	}
	if *updateBookmap && changed {
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
