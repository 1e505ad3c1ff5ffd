package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The "Go home" column of docs/bookmap.md, and the homes of its Appendix A, are lists of items
// separated by "; ". An item is
//
//	path [(planned)] [: Symbol, Type.Method, ...]
//
// where path is a repository file or folder (a folder may end in "/"; a file name may be a glob
// such as core/log/log*.go), "(planned)" says it does not exist yet, and each symbol is declared
// in that file (in that folder's package for a folder): a top-level name, a method or field name,
// or Type.Method / Type.field. Text in parentheses after a symbol or a path is a remark; a path
// may not hide in one. "a → b" names two items. "—", `backticked commands` and the bare words
// README.md, Makefile, go.mod name themselves. Appendix A's entries are "Class → home"; an entry
// without an arrow is one more home of the class before it.

// bookmapPath matches a repository path at the start of an item.
var bookmapPath = regexp.MustCompile(`^((?:clients|core|zk|tools|systemtests|docs|config|bin|docker)(?:/[A-Za-z0-9_.*{},-]*)*|README\.md|Makefile|go\.mod)(?:[^A-Za-z0-9_]|$)`)

// goFileName matches anything that looks like a Go file name, to catch bare names.
var goFileName = regexp.MustCompile(`[A-Za-z0-9_*{},]+\.go\b`)

var symbolRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// pkgIndex is what a package declares, by file.
type pkgIndex struct {
	topLevel map[string]map[string]bool // file -> names (funcs, types, vars, consts)
	methods  map[string]map[string]bool // file -> "Type.Method" and "Method"
	types    map[string]bool            // every type of the package
	fields   map[string]map[string]bool // type -> fields
	typeFile map[string]string          // type -> file
}

type bookmapChecker struct {
	t        *testing.T
	pkgs     map[string]*pkgIndex // folder -> index
	problems []string
}

func (c *bookmapChecker) index(dir string) *pkgIndex {
	if p, ok := c.pkgs[dir]; ok {
		return p
	}
	p := &pkgIndex{topLevel: map[string]map[string]bool{}, methods: map[string]map[string]bool{},
		types: map[string]bool{}, fields: map[string]map[string]bool{}, typeFile: map[string]string{}}
	c.pkgs[dir] = p
	files, _ := filepath.Glob(filepath.Join(repoRoot, dir, "*.go"))
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			c.t.Fatal(err)
		}
		name := filepath.Base(path)
		top, meth := map[string]bool{}, map[string]bool{}
		p.topLevel[name], p.methods[name] = top, meth
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					top[d.Name.Name] = true
					continue
				}
				recv := d.Recv.List[0].Type
				if s, ok := recv.(*ast.StarExpr); ok {
					recv = s.X
				}
				if ix, ok := recv.(*ast.IndexExpr); ok {
					recv = ix.X
				}
				if ix, ok := recv.(*ast.IndexListExpr); ok {
					recv = ix.X
				}
				if id, ok := recv.(*ast.Ident); ok {
					meth[id.Name+"."+d.Name.Name] = true
				}
				meth[d.Name.Name] = true
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						top[s.Name.Name] = true
						p.types[s.Name.Name] = true
						p.typeFile[s.Name.Name] = name
						fields := map[string]bool{}
						p.fields[s.Name.Name] = fields
						switch st := s.Type.(type) {
						case *ast.StructType:
							for _, fl := range st.Fields.List {
								for _, n := range fl.Names {
									fields[n.Name] = true
								}
							}
						case *ast.InterfaceType:
							for _, m := range st.Methods.List {
								for _, n := range m.Names {
									fields[n.Name] = true
									meth[s.Name.Name+"."+n.Name] = true
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							top[n.Name] = true
						}
					}
				}
			}
		}
	}
	return p
}

func (c *bookmapChecker) problem(line int, format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf("docs/bookmap.md:%d: ", line)+fmt.Sprintf(format, args...))
}

// checkCell checks one Go-home cell.
func (c *bookmapChecker) checkCell(line int, cell string) {
	// Every Go file name in the cell must be consumed as part of a full path.
	consumed := map[int]bool{}
	for _, item := range splitItems(cell) {
		at := item.offset
		for _, side := range strings.Split(item.text, "→") {
			lead := len(side) - len(strings.TrimLeft(side, " "))
			c.checkItem(line, strings.TrimSpace(side), at+lead, consumed)
			at += len(side) + len("→")
		}
	}
	for _, loc := range goFileName.FindAllStringIndex(cell, -1) {
		if !consumed[loc[0]] {
			c.problem(line, "%q is not part of a full path item", cell[loc[0]:loc[1]])
		}
	}
}

type cellItem struct {
	text   string
	offset int
}

// splitItems splits a cell at "; " outside parentheses and backticks.
func splitItems(cell string) []cellItem {
	var out []cellItem
	depth, tick, start := 0, false, 0
	for i := 0; i < len(cell); i++ {
		switch cell[i] {
		case '(':
			depth++
		case ')':
			depth--
		case '`':
			tick = !tick
		case ';':
			if depth == 0 && !tick {
				out = append(out, cellItem{cell[start:i], start})
				start = i + 1
			}
		}
	}
	return append(out, cellItem{cell[start:], start})
}

func (c *bookmapChecker) checkItem(line int, item string, offset int, consumed map[int]bool) {
	trimmed := item
	if trimmed == "" || trimmed == "—" || strings.HasPrefix(trimmed, "`") || strings.HasPrefix(trimmed, "n/a") ||
		strings.HasPrefix(trimmed, "OOS") {
		return
	}
	sub := bookmapPath.FindStringSubmatch(trimmed)
	m := ""
	if sub != nil {
		m = sub[1]
	}
	if m == "" {
		if goFileName.MatchString(trimmed) {
			return // reported as a bare name
		}
		c.problem(line, "item %q does not start with a repository path", trimmed)
		return
	}
	for _, loc := range goFileName.FindAllStringIndex(m, -1) {
		consumed[offset+loc[0]] = true // the item starts with its path
	}
	rest := strings.TrimSpace(trimmed[len(m):])
	planned := false
	if strings.HasPrefix(rest, "(planned)") {
		planned = true
		rest = strings.TrimSpace(strings.TrimPrefix(rest, "(planned)"))
	}
	path := strings.TrimSuffix(m, "/")
	matches, _ := filepath.Glob(filepath.Join(repoRoot, path))
	exists := len(matches) > 0
	switch {
	case planned && exists:
		c.problem(line, "%s exists but is marked (planned)", path)
	case !planned && !exists:
		c.problem(line, "%s does not exist; mark it (planned) or fix the path", path)
	}
	if !strings.HasPrefix(rest, ":") {
		if rest != "" && !strings.HasPrefix(rest, "(") {
			c.problem(line, "after %s: %q is neither (planned), a remark in parentheses nor \": symbols\"", path, rest)
		}
		return
	}
	if planned || !exists {
		return
	}
	c.checkSymbols(line, path, matches, strings.TrimSpace(rest[1:]))
}

// checkSymbols resolves each symbol of a list in the files the path names.
func (c *bookmapChecker) checkSymbols(line int, path string, matches []string, list string) {
	fi, err := os.Stat(matches[0])
	if err != nil {
		return
	}
	dir := path
	var files []string
	if !fi.IsDir() {
		dir = filepath.ToSlash(filepath.Dir(path))
		for _, m := range matches {
			files = append(files, filepath.Base(m))
		}
	}
	idx := c.index(dir)
	if files == nil {
		for f := range idx.topLevel {
			files = append(files, f)
		}
	}
	for _, sym := range splitSymbols(list) {
		if !symbolRe.MatchString(sym) {
			c.problem(line, "in %s: %q is not a symbol (Name or Type.Method)", path, sym)
			continue
		}
		if !resolves(idx, files, sym) {
			c.problem(line, "%s does not declare %s", path, sym)
		}
	}
}

// splitSymbols splits "A, B.c (remark), D" into A, B.c, D; a part that is not a symbol with at
// most one trailing remark in parentheses comes back whole, so that it fails the symbol check.
func splitSymbols(list string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(list); i++ {
		switch list[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, list[start:i])
				start = i + 1
			}
		}
	}
	parts = append(parts, list[start:])
	var out []string
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if i := strings.Index(p, "("); i >= 0 && strings.HasSuffix(p, ")") && strings.Count(p, "(") == 1 {
			p = strings.TrimSpace(p[:i])
		}
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func resolves(idx *pkgIndex, files []string, sym string) bool {
	typ, member, qualified := strings.Cut(sym, ".")
	for _, f := range files {
		if !qualified {
			if idx.topLevel[f][sym] || idx.methods[f][sym] {
				return true
			}
			// a field of a type declared in this file
			for t, tf := range idx.typeFile {
				if tf == f && idx.fields[t][sym] {
					return true
				}
			}
			continue
		}
		if idx.methods[f][sym] {
			return true
		}
		if idx.typeFile[typ] == f && idx.fields[typ][member] {
			return true
		}
	}
	return false
}

// TestBookmapIsTrue keeps docs/bookmap.md true to the tree: every file and folder its "Go home"
// column (and Appendix A's homes) names exists, or is marked (planned) and does not exist yet, and
// every symbol named after a path is declared there (go/ast over the package's files).
func TestBookmapIsTrue(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "bookmap.md"))
	if err != nil {
		t.Fatal(err)
	}
	c := &bookmapChecker{t: t, pkgs: map[string]*pkgIndex{}}
	rows := 0
	for i, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		cols := strings.Split(line, "|")
		switch {
		case len(cols) == 7 && strings.TrimSpace(cols[4]) != "Go home": // | § | Title | Kafka 0.10.2 | Go home | Notes |
			rows++
			c.checkCell(i+1, cols[4])
		case len(cols) == 4 && strings.TrimSpace(cols[2]) != "Class → Go home" && strings.Contains(cols[2], "→"): // Appendix A
			rows++
			for _, entry := range splitItems(cols[2]) {
				// "Class → home"; an entry without an arrow is one more home of the previous class.
				home := entry.text
				if _, h, ok := strings.Cut(entry.text, "→"); ok {
					home = h
				}
				c.checkCell(i+1, home)
			}
		}
	}
	if rows < 400 {
		t.Fatalf("only %d bookmap rows read: format changed?", rows)
	}
	sort.Strings(c.problems)
	for _, p := range c.problems {
		t.Error(p)
	}
}
