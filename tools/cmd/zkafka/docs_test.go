package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// outsidePaths are references to material outside the repository that no file may contain: the
// repository explains itself through docs/ (the strings are split so this file does not match).
var outsidePaths = []string{".." + "/shared", "shared" + "/spec"}

// TestNoReferenceOutsideRepository greps every file of the repository (binary files skipped) for
// a path outside it.
func TestNoReferenceOutsideRepository(t *testing.T) {
	walkRepo(t, false, func(rel, path string) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(data, 0) >= 0 {
			return // binary
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, p := range outsidePaths {
				if strings.Contains(line, p) {
					t.Errorf("%s:%d refers to %q, outside the repository: %s", rel, i+1, p, strings.TrimSpace(line))
				}
			}
		}
	})
}

// docCitation matches a citation of a document under docs/ ("docs/formats.md §1.2").
var docCitation = regexp.MustCompile(`docs/[A-Za-z0-9_-]+\.md`)

// TestCitedDocsExist: every docs/*.md that a file of the repository cites exists.
func TestCitedDocsExist(t *testing.T) {
	walkRepo(t, false, func(rel, path string) {
		if strings.HasPrefix(rel, "bin/") {
			return
		}
		data, err := os.ReadFile(path)
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			return
		}
		for _, m := range docCitation.FindAllString(string(data), -1) {
			if _, err := os.Stat(filepath.Join(repoRoot, m)); err != nil {
				t.Errorf("%s cites %s, which does not exist", rel, m)
			}
		}
	})
}

// repoPath matches a file or folder of the repository named in backticks in a document:
// `core/server/kafka_apis.go`, `zk/zktest`, `tools/*`.
var repoPath = regexp.MustCompile("`((?:clients|core|zk|tools|systemtests|docs|config|bin|docker)(?:/[A-Za-z0-9_.*-]+)*)`")

// TestDesignDocsNameExistingFiles: docs/design.md, docs/locks.md and docs/formats.md exist, and
// every file or folder they name in backticks exists (a glob must match something).
func TestDesignDocsNameExistingFiles(t *testing.T) {
	for _, doc := range []string{"docs/design.md", "docs/locks.md", "docs/formats.md"} {
		data, err := os.ReadFile(filepath.Join(repoRoot, doc))
		if err != nil {
			t.Fatal(err)
		}
		named := 0
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range repoPath.FindAllStringSubmatch(line, -1) {
				named++
				matches, err := filepath.Glob(filepath.Join(repoRoot, m[1]))
				if err != nil || len(matches) == 0 {
					t.Errorf("%s:%d names %s, which does not exist", doc, i+1, m[1])
				}
			}
		}
		if named < 10 {
			t.Errorf("%s names only %d repository files", doc, named)
		}
	}
}
