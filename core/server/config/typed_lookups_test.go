package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	kconfig "github.com/zkafka/zkafka/clients/config"
)

// TestPropsHasAFieldPerKey: every key of the broker's ConfigDef has exactly one typed field in
// Props, of the Go type its ConfigDef type parses to.
func TestPropsHasAFieldPerKey(t *testing.T) {
	if err := kconfig.CheckFields(configDef(), Props{}); err != nil {
		t.Fatal(err)
	}
}

// configPackages are the packages allowed to read a configuration value by its key.
var configPackages = []string{"clients/config", "core/server/config"}

var getterName = regexp.MustCompile(`^Get(String|Int|Short|Long|Double|Boolean|List|Password|Class)?$`)

// TestNoKeyLookupsOutsideConfig walks the repository's Go files (tests included) and fails on a
// configuration read by key name outside the configuration packages: a call x.Get*("key") or an
// index x.Originals()["key"] whose key is one the broker's ConfigDef defines. Such a read gives a
// zero value on a typo; the typed fields of KafkaConfig cannot.
func TestNoKeyLookupsOutsideConfig(t *testing.T) {
	keys := map[string]bool{}
	for _, k := range configDef().Keys() {
		keys[k.Name] = true
	}
	root := filepath.Join("..", "..", "..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			for _, p := range configPackages {
				if rel == p {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		literalKey := func(e ast.Expr) (string, bool) {
			lit, ok := e.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return "", false
			}
			s, err := strconv.Unquote(lit.Value)
			return s, err == nil && keys[s]
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				sel, ok := x.Fun.(*ast.SelectorExpr)
				if ok && getterName.MatchString(sel.Sel.Name) && len(x.Args) == 1 {
					if k, ok := literalKey(x.Args[0]); ok {
						t.Errorf("%s: %s(%q) reads a config key by name; use the typed field", fset.Position(x.Pos()), sel.Sel.Name, k)
					}
				}
			case *ast.IndexExpr:
				call, ok := x.X.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Originals" {
					if k, ok := literalKey(x.Index); ok {
						t.Errorf("%s: Originals()[%q] reads a config key by name; use the typed field", fset.Position(x.Pos()), k)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d Go files checked: wrong root?", checked)
	}
}
