package rewrite

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"math/bits"
	"runtime"
	"strconv"
	"sync"
)

// make's size checks: yaegi makes channels and slices with reflect, whose
// checks panic with strings ("reflect.MakeSlice: negative len") or, for
// sizes too large, with "runtime: allocation size out of range", where Go
// panics with runtime errors ("makeslice: len out of range", "makeslice:
// cap out of range", "makechan: size out of range"). The pass gives every
// make of a channel or slice whose size is not a constant (or is a
// constant too large) a compiled check that panics with Go's own runtime
// error before yaegi's make runs:
//
//	make(C, n)    → make(C, __gnb.MakeChan(elemSize, int64(n)))
//	make(S, n)    → make(S, __gnb.MakeSliceLen(elemSize, int64(n)))
//	make(S, n, m) → make(S, __gnb.MakeSlice(elemSize, int64(n), int64(m)), m)
//
// The last form evaluates m twice; where n or m may have side effects (a
// call, a receive), the make is left to yaegi.

// checkMakes adds Go's size checks to the cell's makes.
func checkMakes(x *Cell, ps []*Run) error {
	sizes := types.SizesFor("gc", goarch)
	inspect(ps, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || len(c.Args) < 2 {
			return true
		}
		id, ok := unparen(c.Fun).(*ast.Ident)
		if !ok {
			return true
		}
		if b, ok := x.cc.Info.Uses[id].(*types.Builtin); !ok || b.Name() != "make" {
			return true
		}
		t := x.cc.Info.TypeOf(c.Args[0])
		if t == nil {
			return true
		}
		var elem types.Type
		isChan := false
		switch u := t.Underlying().(type) {
		case *types.Chan:
			elem, isChan = u.Elem(), true
		case *types.Slice:
			elem = u.Elem()
		default:
			return true
		}
		if _, isParam := elem.(*types.TypeParam); isParam {
			return true // a size the checker does not know
		}
		es := sizes.Sizeof(elem)
		if x.constSizesFit(c.Args[1:], es, isChan) {
			return true
		}
		pos := c.Args[1].Pos()
		helper := func(name string) ast.Expr {
			return &ast.SelectorExpr{X: &ast.Ident{Name: "__gnb", NamePos: pos}, Sel: &ast.Ident{Name: name, NamePos: pos}}
		}
		esLit := &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.FormatInt(es, 10)}
		switch {
		case isChan:
			c.Args[1] = &ast.CallExpr{Fun: helper("MakeChan"), Lparen: pos, Args: []ast.Expr{esLit, toInt64(c.Args[1])}, Rparen: c.Args[1].End()}
		case len(c.Args) == 2:
			c.Args[1] = &ast.CallExpr{Fun: helper("MakeSliceLen"), Lparen: pos, Args: []ast.Expr{esLit, toInt64(c.Args[1])}, Rparen: c.Args[1].End()}
		default:
			if !x.pureExpr(c.Args[1]) || !x.pureExpr(c.Args[2]) {
				return true
			}
			c.Args[1] = &ast.CallExpr{Fun: helper("MakeSlice"), Lparen: pos, Args: []ast.Expr{esLit, toInt64(c.Args[1]), toInt64(c.Args[2])}, Rparen: c.Args[1].End()}
		}
		return true
	})
	return nil
}

// constSizesFit reports whether the size operands of a make are all
// constants that Go's checks accept.
func (x *Cell) constSizesFit(args []ast.Expr, es int64, isChan bool) bool {
	var vals []int
	for _, a := range args {
		tv := x.cc.Info.Types[a]
		if tv.Value == nil {
			return false
		}
		v, ok := constant.Int64Val(constant.ToInt(tv.Value))
		if !ok || v < 0 || v > math.MaxInt {
			return false
		}
		vals = append(vals, int(v))
	}
	if isChan {
		return makeChanFits(es, vals[0])
	}
	m := vals[0]
	if len(vals) > 1 {
		m = vals[1]
	}
	return makeSliceFault(es, vals[0], m) == nil
}

// pureExpr reports whether evaluating e twice is the same as once: no
// calls other than conversions and len/cap, no receives.
func (x *Cell) pureExpr(e ast.Expr) bool {
	pure := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			pure = false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				pure = false
			}
		case *ast.CallExpr:
			if tv, ok := x.cc.Info.Types[n.Fun]; ok && tv.IsType() {
				return true
			}
			if id, ok := unparen(n.Fun).(*ast.Ident); ok {
				if b, ok := x.cc.Info.Uses[id].(*types.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
					return true
				}
			}
			pure = false
		}
		return pure
	})
	return pure
}

// maxAlloc is the runtime's largest allocation (runtime/malloc.go, for
// 64-bit platforms with 48-bit heap addresses, and 32-bit ones).
const maxAlloc = uint64(1)<<(min(strconv.IntSize, 48)) - uint64(1-strconv.IntSize/64)

// hchanSize is the size of the runtime's channel header, rounded up
// (runtime/chan.go), on 64-bit platforms.
const hchanSize = 104

// makeChanFits reports whether Go's makechan accepts a buffer of size
// elements of es bytes.
func makeChanFits(es int64, size int) bool {
	hi, mem := bits.Mul64(uint64(es), uint64(size))
	return size >= 0 && hi == 0 && mem <= maxAlloc-hchanSize
}

// makeSliceFault is the runtime error Go's makeslice panics with for
// length n and capacity m of elements of es bytes, or nil.
func makeSliceFault(es int64, n, m int) error {
	hi, mem := bits.Mul64(uint64(es), uint64(m))
	if m >= 0 && hi == 0 && mem <= maxAlloc && n >= 0 && n <= m {
		return nil
	}
	hi, mem = bits.Mul64(uint64(es), uint64(n))
	if n < 0 || hi != 0 || mem > maxAlloc {
		return makeErrors().sliceLen
	}
	return makeErrors().sliceCap
}

// toInt64 converts a size operand for the checks: int64(e). An unsigned
// size above math.MaxInt64 becomes negative, which Go's checks refuse
// with the same error as one too large.
func toInt64(e ast.Expr) ast.Expr {
	return &ast.CallExpr{Fun: &ast.Ident{Name: "int64", NamePos: e.Pos()}, Lparen: e.Pos(), Args: []ast.Expr{e}, Rparen: e.End()}
}

// makeChanSize is __gnb.MakeChan: the buffer size of a make of a channel,
// checked as Go checks it.
func makeChanSize(es int, size int64) int {
	if size < 0 || size > math.MaxInt || !makeChanFits(int64(es), int(size)) {
		panic(makeErrors().chanSize)
	}
	return int(size)
}

// makeSliceLen is __gnb.MakeSliceLen: the length of make(S, n), checked
// as Go checks it.
func makeSliceLen(es int, n int64) int {
	return makeSlice(es, n, n)
}

// makeSlice is __gnb.MakeSlice: the length of make(S, n, m), with the
// capacity, checked as Go checks them.
func makeSlice(es int, n, m int64) int {
	if n > math.MaxInt {
		n = -1
	}
	if m > math.MaxInt {
		m = -1
	}
	if err := makeSliceFault(int64(es), int(n), int(m)); err != nil {
		panic(err)
	}
	return int(n)
}

// goarch is the architecture whose sizes the checks use.
const goarch = runtime.GOARCH

// makeErrorValues are the runtime errors Go's make panics with.
type makeErrorValues struct {
	chanSize, sliceLen, sliceCap error
}

// makeSink keeps the makes that produce the errors from being optimized
// away.
var makeSink any

// makeErrors captures Go's own runtime errors from makes that fail, once.
var makeErrors = sync.OnceValue(func() makeErrorValues {
	catch := func(f func()) (err error) {
		defer func() { err, _ = recover().(error) }()
		f()
		return nil
	}
	neg := -1
	return makeErrorValues{
		chanSize: catch(func() { makeSink = make(chan struct{}, neg) }),
		sliceLen: catch(func() { makeSink = make([]byte, neg) }),
		sliceCap: catch(func() { makeSink = make([]byte, 0, neg) }),
	}
})
