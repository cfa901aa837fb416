package rewrite

import (
	"go/scanner"
	"go/token"
	"strings"
)

// A Span is a run: a maximal sequence of top-level items of the same kind:
// declarations (import, const, var, type, func and method declarations)
// or statements. yaegi decides how to compile a source by its first token,
// so each run is compiled on its own.
type Span struct {
	decl       bool
	start, end int // byte offsets in the cell
	line, col  int // position of start (1-based)
}

// tok is one scanned token.
type tok struct {
	off int
	tok token.Token
}

// Split cuts code into runs with go/scanner, at brace depth 0. A magic
// line between two items always ends a run (breaks holds their line
// numbers), so a magic acts between the runs before and after it; so does
// a "%time STATEMENT" magic on the line where an item starts.
func Split(code string, breaks []int) []Span {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(code))
	var s scanner.Scanner
	s.Init(file, []byte(code), func(token.Position, string) {}, 0)
	var toks []tok
	for {
		pos, t, _ := s.Scan()
		if t == token.EOF {
			break
		}
		toks = append(toks, tok{file.Offset(pos), t})
	}
	type item struct {
		decl bool
		off  int
	}
	var items []item
	depth := 0
	start := true
	for i, t := range toks {
		if start && depth == 0 && t.tok != token.SEMICOLON {
			items = append(items, item{isDecl(toks, i), t.off})
			start = false
		}
		switch t.tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if depth > 0 {
				depth--
			}
		case token.SEMICOLON:
			if depth == 0 {
				start = true
			}
		}
	}
	lineOf := func(off int) (line, col int) {
		line = 1 + strings.Count(code[:off], "\n")
		col = off - (strings.LastIndexByte(code[:off], '\n') + 1) + 1
		return line, col
	}
	var runs []Span
	prevLine := 0
	for _, it := range items {
		line, col := lineOf(it.off)
		broken := false
		for _, b := range breaks {
			if b > prevLine && b <= line { // b == line: "%time STATEMENT" on that line
				broken = true
			}
		}
		if n := len(runs); n > 0 && runs[n-1].decl == it.decl && !broken {
			prevLine = line
			continue
		}
		if n := len(runs); n > 0 {
			runs[n-1].end = it.off
		}
		runs = append(runs, Span{decl: it.decl, start: it.off, line: line, col: col})
		prevLine = line
	}
	if n := len(runs); n > 0 {
		runs[n-1].end = len(code)
	}
	return runs
}

// isDecl reports whether the item starting at toks[i] is a declaration.
// "func name(", and "func (r T) Name(" are declarations; "func(){…}()" and
// "func(x int) int {…}(3)" are statements (calls of function literals).
func isDecl(toks []tok, i int) bool {
	switch toks[i].tok {
	case token.IMPORT, token.CONST, token.TYPE, token.VAR:
		return true
	case token.FUNC:
	default:
		return false
	}
	if i+1 >= len(toks) {
		return false
	}
	switch toks[i+1].tok {
	case token.IDENT:
		return true
	case token.LPAREN:
		depth := 0
		for j := i + 1; j < len(toks); j++ {
			switch toks[j].tok {
			case token.LPAREN:
				depth++
			case token.RPAREN:
				depth--
				if depth == 0 {
					return j+2 < len(toks) && toks[j+1].tok == token.IDENT && toks[j+2].tok == token.LPAREN
				}
			}
		}
	}
	return false
}
