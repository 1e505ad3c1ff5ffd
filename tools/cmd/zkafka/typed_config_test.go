package main

import (
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/core/server/config"
)

// configPackages are the packages (and the old clients' config definitions, which fill their
// typed fields once from VerifiableProperties as Kafka's ZKConfig-based classes do) allowed to
// read a configuration value by its key.
var configPackages = []string{"clients/config/", "core/server/config/", "clients/oldconsumer/consumer_config.go", "clients/oldproducer/producer_config.go"}

var getterName = regexp.MustCompile(`^Get(String|Int|Short|Long|Double|Boolean|List|Password|Class)?$`)

// TestNoKeyLookupsOutsideConfig walks the repository's Go files (tests included) and fails on a
// configuration read by key name outside the configuration packages: a call x.Get*("key") or an
// index x.Originals()["key"] whose key is one the broker's ConfigDef defines. Such a read gives a
// zero value on a typo; the typed fields of KafkaConfig (docs/design.md §6) cannot.
func TestNoKeyLookupsOutsideConfig(t *testing.T) {
	keys := map[string]bool{}
	for _, k := range config.ConfigNames() {
		keys[k] = true
	}
	walkGo(t, func(rel string, f *ast.File, fset *token.FileSet) {
		for _, p := range configPackages {
			if strings.HasPrefix(rel, p) {
				return
			}
		}
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
	})
}
