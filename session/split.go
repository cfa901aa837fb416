package session

import (
	"go/scanner"
	"go/token"
	"strings"
)

// A magic is a line of a cell that starts with '%' (outside strings and
// comments), e.g. "%time" or "%env HOME".
type magic struct {
	line int    // 1-based line number in the cell
	name string // "time", "env", …
	args string // the rest of the line, trimmed
	// stmt: the magic prefixes code on its own line ("%time x := f()"),
	// which stays in the cell; the magic applies to that line's statement.
	stmt bool
}

// extractMagics finds the line magics of a cell. It returns them and the
// cell with each magic line emptied (line numbers and the columns of the
// other lines are unchanged), except "%time STATEMENT", IPython's form for
// timing one statement: there only "%time" becomes blanks and the
// statement stays where it is (a stmt magic). Only a '%' in column 1
// starts a magic, and not inside a raw string or a block comment: Go code
// never has one there.
func extractMagics(code string) (magics []magic, rest string) {
	if !strings.Contains(code, "%") {
		return nil, code
	}
	var b strings.Builder
	const (
		normal = iota
		raw
		block
	)
	state := normal
	line := 1
	for i := 0; i < len(code); {
		// At the start of a line.
		if state == normal && code[i] == '%' {
			end := strings.IndexByte(code[i:], '\n')
			if end < 0 {
				end = len(code) - i
			}
			text := strings.TrimSpace(code[i+1 : i+end])
			name, args, _ := strings.Cut(text, " ")
			if name == "time" && strings.TrimSpace(args) != "" {
				// "%time x := f()": blank out "%time", then copy the
				// statement below like any line.
				magics = append(magics, magic{line: line, name: name, stmt: true})
				b.WriteString(strings.Repeat(" ", len("%time")))
				i += len("%time")
			} else {
				magics = append(magics, magic{line: line, name: name, args: strings.TrimSpace(args)})
				i += end
				if i < len(code) {
					b.WriteByte('\n')
					i++
					line++
				}
				continue
			}
		}
		// Copy one line, tracking strings and comments.
		for i < len(code) {
			c := code[i]
			b.WriteByte(c)
			i++
			if c == '\n' {
				line++
				break
			}
			switch state {
			case raw:
				if c == '`' {
					state = normal
				}
			case block:
				if c == '*' && i < len(code) && code[i] == '/' {
					b.WriteByte('/')
					i++
					state = normal
				}
			default:
				switch c {
				case '`':
					state = raw
				case '/':
					if i < len(code) && code[i] == '/' { // a line comment: copy to the end of line
						end := strings.IndexByte(code[i:], '\n')
						if end < 0 {
							end = len(code) - i
						}
						b.WriteString(code[i : i+end])
						i += end
					} else if i < len(code) && code[i] == '*' {
						b.WriteByte('*')
						i++
						state = block
					}
				case '"', '\'':
					for i < len(code) && code[i] != '\n' {
						d := code[i]
						b.WriteByte(d)
						i++
						if d == '\\' && i < len(code) && code[i] != '\n' {
							b.WriteByte(code[i])
							i++
						} else if d == c {
							break
						}
					}
				}
			}
		}
	}
	return magics, b.String()
}

// A run is a maximal sequence of top-level items of the same kind:
// declarations (import, const, var, type, func and method declarations)
// or statements. yaegi decides how to compile a source by its first token,
// so each run is compiled on its own.
type run struct {
	decl       bool
	start, end int // byte offsets in the cell
	line, col  int // position of start (1-based)
}

// tok is one scanned token.
type tok struct {
	off int
	tok token.Token
}

// splitRuns cuts code into runs with go/scanner, at brace depth 0. A magic
// line between two items always ends a run (breaks holds their line
// numbers), so a magic acts between the runs before and after it; so does
// a "%time STATEMENT" magic on the line where an item starts.
func splitRuns(code string, breaks []int) []run {
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
	var runs []run
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
		runs = append(runs, run{decl: it.decl, start: it.off, line: line, col: col})
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
