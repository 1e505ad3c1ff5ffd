package main

import (
	"go/ast"
	"go/token"
	"path"
	"strings"
	"testing"
)

// formerMappers are the functions that mapped errors to Kafka errors or codes before
// protocol.CodeOf became the only mapper; none of them may come back.
var formerMappers = map[string]string{
	"core/cluster:ToKafkaError":     "log-layer errors to protocol errors",
	"core/server:adminErrorToKafka": "core/admin kinds to protocol errors",
	"core/coordinator:codeOf":       "a second CodeOf",
}

// TestOneErrorBoundary: protocol.CodeOf (clients/protocol/errors.go) is the only place where an
// error becomes a Kafka error code. The former mappers are gone, and no function outside that
// file translates an error kind into a protocol error: a function that tests an error with
// errors.Is or errors.As against something that is not a protocol.Err* value, and in the same body
// produces a protocol.Err* value or code, is such a translation. Packages give their sentinels a
// code with protocol.NewSentinel instead.
func TestOneErrorBoundary(t *testing.T) {
	found := map[string]bool{}
	walkGo(t, func(rel string, f *ast.File, fset *token.FileSet) {
		if strings.HasSuffix(rel, "_test.go") {
			return
		}
		pkg := path.Dir(rel)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			found[pkg+":"+fn.Name.Name] = true
			if rel == "clients/protocol/errors.go" {
				continue
			}
			if where, ok := translatesErrors(fn.Body); ok {
				t.Errorf("%s: %s maps an error kind to a Kafka error; give the kind a code with protocol.NewSentinel and let protocol.CodeOf map it",
					fset.Position(where), fn.Name.Name)
			}
		}
	})
	if !found["clients/protocol:CodeOf"] {
		t.Fatal("protocol.CodeOf not found: wrong root?")
	}
	for name := range formerMappers {
		if found[name] {
			t.Errorf("%s exists again: protocol.CodeOf must stay the only error-to-code mapper", name)
		}
	}
}

// translatesErrors finds a translation of error kinds into Kafka errors: an if or a switch case
// whose condition tests an error against a kind other than a protocol error (errors.Is/As) and
// whose body produces a protocol error (protocol.ErrX, protocol.ErrX.Code, protocol.ErrorForCode),
// or a table literal pairing another package's ErrX with a protocol.ErrX.
func translatesErrors(body *ast.BlockStmt) (token.Pos, bool) {
	var at token.Pos
	ast.Inspect(body, func(n ast.Node) bool {
		if at != token.NoPos {
			return false
		}
		switch x := n.(type) {
		case *ast.IfStmt:
			if testsOtherKind(x.Cond) && producesKafkaError(x.Body) {
				at = x.Pos()
			}
		case *ast.CaseClause:
			for _, e := range x.List {
				if testsOtherKind(e) {
					for _, st := range x.Body {
						if producesKafkaError(st) {
							at = x.Pos()
						}
					}
				}
			}
		case *ast.CompositeLit:
			var other, kafka bool
			for _, el := range x.Elts {
				other = other || isOtherErr(el)
				kafka = kafka || isProtocolErr(el)
			}
			if other && kafka {
				at = x.Pos()
			}
		}
		return true
	})
	return at, at != token.NoPos
}

// testsOtherKind: e contains errors.Is(x, k) or errors.As(x, k) with k not a protocol error.
func testsOtherKind(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if ok && (isSel(call.Fun, "errors", "Is") || isSel(call.Fun, "errors", "As")) && len(call.Args) == 2 && !isProtocolErr(call.Args[1]) {
			found = true
		}
		return !found
	})
	return found
}

// producesKafkaError: n mentions protocol.ErrX or calls protocol.ErrorForCode outside an
// errors.Is/As test.
func producesKafkaError(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			if isSel(x.Fun, "errors", "Is") || isSel(x.Fun, "errors", "As") {
				return false
			}
			found = found || isSel(x.Fun, "protocol", "ErrorForCode")
		case *ast.SelectorExpr:
			found = found || isProtocolErr(x)
		}
		return !found
	})
	return found
}

// isOtherErr matches pkg.ErrX for a package other than protocol.
func isOtherErr(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name != "protocol" && strings.HasPrefix(sel.Sel.Name, "Err")
}

func isSel(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}

// isProtocolErr matches protocol.ErrX (and protocol.ErrX.Code through its operand).
func isProtocolErr(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if inner, ok := sel.X.(*ast.SelectorExpr); ok {
		return isProtocolErr(inner)
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == "protocol" && strings.HasPrefix(sel.Sel.Name, "Err")
}
