package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the module root, seen from this package's directory.
var repoRoot = filepath.Join("..", "..", "..")

// walkRepo calls visit for every file of the repository (module-relative slash path), skipping
// hidden directories (.git) and, when skipTestdata is set, testdata directories.
func walkRepo(t *testing.T, skipTestdata bool, visit func(rel, path string)) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || skipTestdata && d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		files++
		visit(rel, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 300 {
		t.Fatalf("only %d files under %s: wrong root?", files, repoRoot)
	}
}

// walkGo parses every Go file of the repository (testdata skipped) and calls visit with it.
func walkGo(t *testing.T, visit func(rel string, f *ast.File, fset *token.FileSet)) {
	t.Helper()
	fset := token.NewFileSet()
	walkRepo(t, true, func(rel, path string) {
		if !strings.HasSuffix(rel, ".go") {
			return
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		visit(rel, f, fset)
	})
}
