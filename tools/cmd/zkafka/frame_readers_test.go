package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// frameReaderHomes are the packages allowed to read size-delimited frames off a connection
// themselves: the clients' network layer (NetworkReceive, which every client, the broker's own
// clients and the harnesses go through) and the broker's Processors. zk/ speaks ZooKeeper's
// jute framing, which has the same shape but is not a Kafka frame. The bench's raw broker is
// the machine's floor (issue 19): a minimal server that must not use the code it is the floor of.
var frameReaderHomes = []string{"clients/network/", "core/network/", "zk/", "systemtests/cmd/benchbroker/rawbroker.go"}

// TestNoPrivateFrameReaders fails on any non-test Go file outside frameReaderHomes that reads a
// Kafka frame's INT32 size prefix itself (issue 14 item 2: six private copies disagreed on the
// size limit, the size check and what a correlation-id mismatch does). Use
// network.ReadNetworkReceive, or a clients.NetworkClient through NetworkClientBlockingOps.
func TestNoPrivateFrameReaders(t *testing.T) {
	checked := 0
	walkGo(t, func(rel string, f *ast.File, fset *token.FileSet) {
		if strings.HasSuffix(rel, "_test.go") {
			return
		}
		for _, home := range frameReaderHomes {
			if strings.HasPrefix(rel, home) {
				return
			}
		}
		checked++
		for _, finding := range findSizePrefixReads(f, fset) {
			t.Errorf("%s: %s reads a size-prefixed frame itself; use clients/network.ReadNetworkReceive or clients.NetworkClientBlockingOps", rel, finding)
		}
	})
	if checked < 200 {
		t.Fatalf("only %d Go files checked", checked)
	}
}

// TestFindSizePrefixReads: the detector flags every shape the removed private readers had, and
// not the fixed-size decoding that is not frame reading.
func TestFindSizePrefixReads(t *testing.T) {
	flagged := map[string]string{
		"ReadFull into [4]byte, then Uint32": `package p
func readFrame(r io.Reader) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil { return nil, err }
	n := int32(binary.BigEndian.Uint32(size[:]))
	buf := make([]byte, n)
	_, err := io.ReadFull(r, buf)
	return buf, err
}`,
		"make([]byte, 4) and a Read method, in a closure": `package p
func f(c net.Conn) {
	go func() {
		hdr := make([]byte, 4)
		c.Read(hdr)
		_ = binary.BigEndian.Uint32(hdr)
	}()
}`,
		"the first four bytes of a longer header": `package p
func f(r *bufio.Reader) {
	var hdr [16]byte
	io.ReadAtLeast(r, hdr[0:4], 4)
	_ = binary.BigEndian.Uint32(hdr[:4])
}`,
		"binary.Read of an int32": `package p
func f(r io.Reader) int32 {
	var n int32
	binary.Read(r, binary.BigEndian, &n)
	return n
}`,
		"a method": `package p
func (w *W) next() {
	sz := [4]byte{}
	io.ReadFull(w.r, sz[:])
	w.n = binary.BigEndian.Uint32(sz[:])
}`,
	}
	clean := map[string]string{
		"decoding bytes already in memory": `package p
func f(data []byte) int32 { return int32(binary.BigEndian.Uint32(data)) }`,
		"a 12-byte log entry header": `package p
func f(r io.Reader) {
	var header [12]byte
	io.ReadFull(r, header[:])
	_ = binary.BigEndian.Uint32(header[8:12])
}`,
		"reading four bytes that are not decoded as a size": `package p
func f(r io.Reader) {
	var magic [4]byte
	io.ReadFull(r, magic[:])
	_ = string(magic[:])
}`,
		"binary.Read of an int64": `package p
func f(r io.Reader) { var n int64; binary.Read(r, binary.BigEndian, &n) }`,
	}
	for name, src := range flagged {
		if got := findInSource(t, src); len(got) != 1 {
			t.Errorf("%s: findings %v, want one", name, got)
		}
	}
	for name, src := range clean {
		if got := findInSource(t, src); len(got) != 0 {
			t.Errorf("%s: findings %v, want none", name, got)
		}
	}
}

func findInSource(t *testing.T, src string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	return findSizePrefixReads(f, fset)
}

// findSizePrefixReads reports, per function, a four-byte read from a reader whose bytes are then
// decoded as a big-endian INT32 (io.ReadFull / io.ReadAtLeast / a Read method into a [4]byte, a
// make([]byte, 4) or the [:4] of a buffer, and binary.BigEndian.Uint32 of the same variable), and
// binary.Read of a 32-bit integer.
func findSizePrefixReads(f *ast.File, fset *token.FileSet) []string {
	var out []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		fourByteVars := map[string]bool{} // [4]byte or make([]byte, 4)
		int32Vars := map[string]bool{}
		readInto := map[string]token.Pos{}
		decoded := map[string]bool{}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if isFourByteArray(n.Type) || isInt32Type(n.Type) {
						fourByteVars[name.Name] = fourByteVars[name.Name] || isFourByteArray(n.Type)
						int32Vars[name.Name] = int32Vars[name.Name] || isInt32Type(n.Type)
					}
					if i < len(n.Values) && isFourByteValue(n.Values[i]) {
						fourByteVars[name.Name] = true
					}
				}
			case *ast.AssignStmt:
				if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
					for i, l := range n.Lhs {
						if id, ok := l.(*ast.Ident); ok && isFourByteValue(n.Rhs[i]) {
							fourByteVars[id.Name] = true
						}
					}
				}
			case *ast.CallExpr:
				switch {
				case isSel(n.Fun, "io", "ReadFull") && len(n.Args) == 2, isSel(n.Fun, "io", "ReadAtLeast") && len(n.Args) == 3:
					if v, four := bufferVar(n.Args[1]); v != "" {
						readInto[v+fourTag(four)] = n.Pos()
					}
				case isSel(n.Fun, "binary", "Read") && len(n.Args) == 3:
					if u, ok := n.Args[2].(*ast.UnaryExpr); ok && u.Op == token.AND {
						if id, ok := u.X.(*ast.Ident); ok {
							readInto["binary.Read "+id.Name] = n.Pos()
						}
					}
				case isUint32Decode(n.Fun) && len(n.Args) == 1:
					if v, _ := bufferVar(n.Args[0]); v != "" {
						decoded[v] = true
					}
				default:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Read" && len(n.Args) == 1 {
						if v, four := bufferVar(n.Args[0]); v != "" {
							readInto[v+fourTag(four)] = n.Pos()
						}
					}
				}
			}
			return true
		})
		for key, pos := range readInto {
			name, four := strings.CutSuffix(key, "/4")
			switch {
			case strings.HasPrefix(key, "binary.Read "):
				if int32Vars[strings.TrimPrefix(key, "binary.Read ")] {
					out = append(out, fmt.Sprintf("%s (%s)", fn.Name.Name, fset.Position(pos)))
				}
			case (four || fourByteVars[name]) && decoded[name]:
				out = append(out, fmt.Sprintf("%s (%s)", fn.Name.Name, fset.Position(pos)))
			}
		}
	}
	return out
}

func fourTag(four bool) string {
	if four {
		return "/4"
	}
	return ""
}

// bufferVar is the variable an expression reads or writes the bytes of (v, v[:], v[lo:hi]), and
// whether it is explicitly its first four bytes (v[:4], v[0:4]).
func bufferVar(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name, false
	case *ast.SliceExpr:
		id, ok := e.X.(*ast.Ident)
		if !ok {
			return "", false
		}
		lowZero := e.Low == nil || isIntLit(e.Low, "0")
		return id.Name, lowZero && e.High != nil && isIntLit(e.High, "4")
	}
	return "", false
}

func isIntLit(e ast.Expr, v string) bool {
	l, ok := e.(*ast.BasicLit)
	return ok && l.Kind == token.INT && l.Value == v
}

// isUint32Decode matches binary.BigEndian.Uint32.
func isUint32Decode(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Uint32" && isSel(sel.X, "binary", "BigEndian")
}

func isFourByteArray(e ast.Expr) bool {
	a, ok := e.(*ast.ArrayType)
	if !ok || a.Len == nil || !isIntLit(a.Len, "4") {
		return false
	}
	id, ok := a.Elt.(*ast.Ident)
	return ok && (id.Name == "byte" || id.Name == "uint8")
}

func isInt32Type(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && (id.Name == "int32" || id.Name == "uint32")
}

// isFourByteValue matches [4]byte{} and make([]byte, 4).
func isFourByteValue(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.CompositeLit:
		return isFourByteArray(e.Type)
	case *ast.CallExpr:
		id, ok := e.Fun.(*ast.Ident)
		if !ok || id.Name != "make" || len(e.Args) != 2 || !isIntLit(e.Args[1], "4") {
			return false
		}
		a, ok := e.Args[0].(*ast.ArrayType)
		return ok && a.Len == nil
	}
	return false
}
