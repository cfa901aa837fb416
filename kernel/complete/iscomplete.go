package complete

import (
	"go/scanner"
	"go/token"
	"strings"
)

// Samples for the Jupyter conformance suite's is_complete test (and any
// other test that needs one cell of each kind).
const (
	CompleteSample   = "1"
	IncompleteSample = "for i := 0; i < 3; i++ {"
	InvalidSample    = "x := 1)"
)

// Indent is one level of the indentation IsComplete suggests: four spaces,
// not gofmt's tab, because a console inserts the string literally (a tab
// there is the completion key, and terminals show it eight columns wide);
// the interpreter ignores indentation and `gofmt` restores tabs.
const Indent = "    "

// isComplete implements IsComplete.
func isComplete(code string) (status, indent string) {
	src, cellMagic := blankMagics(code)
	if cellMagic || strings.TrimSpace(src) == "" {
		return "complete", ""
	}

	fset := token.NewFileSet()
	file := fset.AddFile("cell.go", -1, len(src))
	var (
		invalid    bool // an error that more input cannot fix
		unfinished bool // an unterminated raw string or block comment
	)
	var s scanner.Scanner
	s.Init(file, []byte(src), func(_ token.Position, msg string) {
		switch {
		case strings.Contains(msg, "comment not terminated"),
			strings.Contains(msg, "raw string literal not terminated"):
			unfinished = true
		default:
			invalid = true // illegal character, unterminated "…" or '…', bad number, …
		}
	}, 0)

	type opener struct {
		tok  token.Token
		line int
	}
	var (
		stack []opener
		last  = token.SEMICOLON // last token, automatic semicolons left out

		stmtStart   = true      // the next token starts a statement at depth 0
		header      token.Token // func/if/for/switch/select whose body has not begun
		headerEnded bool        // …and a semicolon ended it
		prev        token.Token // previous token (automatic semicolons included)
		closer      = map[token.Token]token.Token{token.RPAREN: token.LPAREN, token.RBRACK: token.LBRACK, token.RBRACE: token.LBRACE}
	)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		auto := tok == token.SEMICOLON && lit == "\n"
		if tok == token.SEMICOLON && len(stack) == 0 {
			if header != token.ILLEGAL && !(header == token.FOR && !auto) {
				headerEnded = true
			}
		} else if headerEnded {
			header, headerEnded = token.ILLEGAL, false
		}
		switch tok {
		case token.ILLEGAL:
			invalid = true
		case token.LPAREN, token.LBRACK, token.LBRACE:
			if tok == token.LBRACE && len(stack) == 0 && header != token.ILLEGAL {
				header = token.ILLEGAL // the body begins
			}
			stack = append(stack, opener{tok, file.Line(pos)})
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if len(stack) == 0 || stack[len(stack)-1].tok != closer[tok] {
				invalid = true
			} else {
				stack = stack[:len(stack)-1]
			}
		case token.FUNC, token.IF, token.FOR, token.SWITCH, token.SELECT:
			if len(stack) == 0 && (stmtStart || prev == token.ELSE) {
				header, headerEnded = tok, false
			}
		}
		stmtStart = len(stack) == 0 && (tok == token.SEMICOLON || tok == token.LBRACE || tok == token.RBRACE)
		prev = tok
		if !auto {
			last = tok
		}
	}
	if invalid {
		return "invalid", ""
	}
	if unfinished {
		return "incomplete", ""
	}

	// Suggested indent: one level per line that holds open brackets (gofmt
	// indents `f(func() {` once, not twice).
	levels := 0
	for i, o := range stack {
		if i == 0 || o.line != stack[i-1].line {
			levels++
		}
	}
	switch {
	case len(stack) > 0:
		return "incomplete", strings.Repeat(Indent, levels)
	case continues(last):
		return "incomplete", Indent // a continuation line
	case header != token.ILLEGAL:
		return "incomplete", "" // `func f() int`, `if x`: the body is missing
	}
	return "complete", ""
}

// continues reports whether a cell ending in tok needs more input: binary
// and unary operators, assignments, `,` `.` `:` and keywords that cannot end
// a statement.
func continues(tok token.Token) bool {
	switch {
	case tok.IsOperator():
		switch tok {
		case token.INC, token.DEC, token.RPAREN, token.RBRACK, token.RBRACE,
			token.SEMICOLON, token.ELLIPSIS:
			return false
		}
		return true
	case tok.IsKeyword():
		switch tok {
		case token.BREAK, token.CONTINUE, token.FALLTHROUGH, token.RETURN:
			return false
		}
		return true
	}
	return false
}

// blankMagics replaces the leading line magics (lines at the top of the
// cell whose first non-blank character is %, blank lines between them
// allowed) by spaces, keeping every byte offset. A cell whose first line
// starts with %% is a cell magic (its body is not Go): cellMagic is true.
func blankMagics(code string) (src string, cellMagic bool) {
	if strings.HasPrefix(strings.TrimLeft(code, " \t\r\n"), "%%") {
		return code, true
	}
	b := []byte(code)
	for i := 0; i < len(b); {
		end := i
		for end < len(b) && b[end] != '\n' {
			end++
		}
		line := strings.TrimSpace(string(b[i:end]))
		if line != "" && !strings.HasPrefix(line, "%") {
			break
		}
		for k := i; k < end; k++ {
			b[k] = ' '
		}
		i = end + 1
	}
	return string(b), false
}
