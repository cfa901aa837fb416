package complete

import (
	"bytes"
	"errors"
	"go/parser"
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

// isComplete implements IsComplete: the scanner's verdict (scanCell),
// then, unless the scanner already found the cell invalid or unfinished,
// go/parser's (parseCell).
func isComplete(code string) (status, indent string) {
	if isDocQuery(code) {
		return "complete", ""
	}
	src, cellMagic := blankMagics(code)
	if cellMagic {
		body, ok := timedCell(src)
		if !ok {
			return "complete", "" // %%cuda …: the body is not Go
		}
		src, _ = blankMagics(body)
	}
	if strings.TrimSpace(src) == "" {
		return "complete", ""
	}
	sc := scanCell(src)
	if sc.status == "invalid" || sc.unfinished {
		return sc.status, sc.indent
	}
	if parseCell(src, sc) {
		return "invalid", ""
	}
	return sc.status, sc.indent
}

// scanned is the scanner's verdict on a cell.
type scanned struct {
	status, indent string // as IsComplete's
	unfinished     bool   // an unterminated raw string or block comment
	end            int    // the offset just past the last token
	closers        string // the closing brackets of those left open, innermost first
}

// scanCell is the scanner's verdict on src (magics blanked).
func scanCell(src string) (sc scanned) {
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
			sc.end = file.Offset(pos) + tokenLen(tok, lit)
		}
	}
	if invalid {
		sc.status = "invalid"
		return sc
	}
	if unfinished {
		sc.status, sc.unfinished = "incomplete", true
		return sc
	}
	for i := len(stack) - 1; i >= 0; i-- {
		sc.closers += map[token.Token]string{token.LPAREN: ")", token.LBRACK: "]", token.LBRACE: "}"}[stack[i].tok]
	}

	// Suggested indent: one level per line that holds open brackets (gofmt
	// indents `f(func() {` once, not twice).
	levels := 0
	for i, o := range stack {
		if i == 0 || o.line != stack[i-1].line {
			levels++
		}
	}
	sc.status = "incomplete"
	switch {
	case len(stack) > 0:
		sc.indent = strings.Repeat(Indent, levels)
	case continues(last):
		sc.indent = Indent // a continuation line
	case header != token.ILLEGAL:
		// `func f() int`, `if x`: the body is missing
	default:
		sc.status = "complete"
	}
	return sc
}

// tokenLen is the length in bytes of a token as scanned.
func tokenLen(tok token.Token, lit string) int {
	if lit != "" {
		return len(lit)
	}
	return len(tok.String())
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

// parseCell parses src (magics blanked) as the session runs it and
// reports whether it is invalid. The cell is cut at its top-level
// semicolons into runs of declarations and runs of statements (as the
// session's splitRuns does); a declaration run is parsed as a file, a
// statement run as a function body (as the session's parse does). A
// complete cell (sc) is invalid when any run has a syntax error. An
// incomplete one when a run but the last has one, or when the last run
// has an error before the cell's last token ends whatever follows it:
// the run is parsed with the brackets left open closed, and followed in
// turn by nothing, "_" and "_ = 0", since the parser reports some errors
// at the start of a construct that more input completes (`a,` is "expected
// 1 expression" at `a` until `b = f()` follows).
func parseCell(src string, sc scanned) (invalid bool) {
	runs := cellRuns(src)
	for i, r := range runs {
		text := strings.TrimRight(src[r.start:r.end], " \t\r\n")
		if sc.status == "complete" || i < len(runs)-1 {
			if firstError(r, text, "") >= 0 {
				return true
			}
			continue
		}
		invalid = true
		for _, more := range []string{"", " _", " _ = 0"} {
			if off := firstError(r, text, more+"\n"+sc.closers); off < 0 || off >= sc.end {
				invalid = false
				break
			}
		}
	}
	return invalid
}

// firstError parses run r, whose text (in the cell) is followed by more,
// and returns the cell offset of its first syntax error, or -1.
func firstError(r cellRun, text, more string) int {
	prefix, suffix := "package p\n", ""
	if !r.decl {
		prefix, suffix = "package p; func _() {\n", "\n}"
	}
	_, err := parser.ParseFile(token.NewFileSet(), "", prefix+text+more+suffix, parser.SkipObjectResolution)
	var list scanner.ErrorList
	if err == nil {
		return -1
	}
	if !errors.As(err, &list) || len(list) == 0 {
		return 0
	}
	list.Sort()
	return max(r.start+list[0].Pos.Offset-len(prefix), 0)
}

// cellRun is a run of top-level declarations or statements, [start, end)
// in the cell.
type cellRun struct {
	decl       bool
	start, end int
}

// cellRuns cuts src into runs as the session does: an item starts after a
// semicolon at bracket depth 0, and consecutive items of one kind (isDecl)
// form a run.
func cellRuns(src string) []cellRun {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), func(token.Position, string) {}, 0)
	var (
		toks []token.Token
		offs []int
	)
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			break
		}
		toks, offs = append(toks, tok), append(offs, file.Offset(pos))
	}
	var runs []cellRun
	depth, start := 0, true
	for i, tok := range toks {
		if start && depth == 0 && tok != token.SEMICOLON {
			start = false
			decl := startsDecl(toks[i:])
			if n := len(runs); n == 0 || runs[n-1].decl != decl {
				if n > 0 {
					runs[n-1].end = offs[i]
				}
				runs = append(runs, cellRun{decl: decl, start: offs[i]})
			}
		}
		switch tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth = max(depth-1, 0)
		case token.SEMICOLON:
			start = depth == 0
		}
	}
	if n := len(runs); n > 0 {
		runs[n-1].end = len(src)
	}
	return runs
}

// startsDecl reports whether the item whose tokens start toks is a
// declaration: import, const, type, var, "func name" or "func (r T)
// Name(" — not a function literal called at once.
func startsDecl(toks []token.Token) bool {
	n := len(toks)
	at := func(j int) token.Token { return toks[j] }
	switch at(0) {
	case token.IMPORT, token.CONST, token.TYPE, token.VAR:
		return true
	case token.FUNC:
	default:
		return false
	}
	if n < 2 {
		return false
	}
	switch at(1) {
	case token.IDENT:
		return true
	case token.LPAREN:
		depth := 0
		for j := 1; j < n; j++ {
			switch at(j) {
			case token.LPAREN:
				depth++
			case token.RPAREN:
				depth--
				if depth == 0 {
					return j+2 < n && at(j+1) == token.IDENT && at(j+2) == token.LPAREN
				}
			}
		}
	}
	return false
}

// isDocQuery reports whether code is a help query, a lone (qualified)
// name followed by "?" ("strings.Split?"), which the session answers with
// the name's documentation.
func isDocQuery(code string) bool {
	name, ok := strings.CutSuffix(strings.TrimSpace(code), "?")
	if !ok || name == "" {
		return false
	}
	for _, part := range strings.Split(name, ".") {
		if !token.IsIdentifier(part) {
			return false
		}
	}
	return true
}

// timedCell returns the Go body of a %%time cell (its magic line
// blanked); ok is false for other cell magics.
func timedCell(code string) (body string, ok bool) {
	i := strings.Index(code, "%%")
	line, _, _ := strings.Cut(code[i+2:], "\n")
	if name, _, _ := strings.Cut(strings.TrimSpace(line), " "); name != "time" {
		return "", false
	}
	return code[:i] + strings.Repeat(" ", 2+len(line)) + code[i+2+len(line):], true
}

// blankMagics replaces the line magics by spaces, keeping every byte
// offset: the leading lines whose first non-blank character is % (blank
// lines between them allowed), and, as the session reads them, every
// later line with % in column 1 outside a raw string or block comment. A
// cell whose first line starts with %% is a cell magic (its body may not
// be Go): cellMagic is true and src is code unchanged.
func blankMagics(code string) (src string, cellMagic bool) {
	if strings.HasPrefix(strings.TrimLeft(code, " \t\r\n"), "%%") {
		return code, true
	}
	b := []byte(code)
	i := 0
	for i < len(b) {
		end := lineEnd(b, i)
		line := strings.TrimSpace(string(b[i:end]))
		if line != "" && !strings.HasPrefix(line, "%") {
			break
		}
		blank(b, i, end)
		i = end + 1
	}
	// Later magics: a % token in column 1. A magic line's text is not Go
	// (it may hold a backquote), so scan again after blanking each.
	for {
		at := magicAt(b)
		if at < 0 {
			return string(b), false
		}
		blank(b, at, lineEnd(b, at))
	}
}

// magicAt returns the offset of the first % in column 1 outside raw
// strings and comments, or -1.
func magicAt(b []byte) int {
	if !bytes.Contains(b, []byte("\n%")) {
		return -1
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(b))
	var s scanner.Scanner
	s.Init(file, b, func(token.Position, string) {}, 0)
	for {
		pos, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return -1
		case token.REM, token.REM_ASSIGN:
			if off := file.Offset(pos); off > 0 && b[off-1] == '\n' {
				return off
			}
		}
	}
}

func lineEnd(b []byte, i int) int {
	if k := bytes.IndexByte(b[i:], '\n'); k >= 0 {
		return i + k
	}
	return len(b)
}

func blank(b []byte, from, to int) {
	for k := from; k < to; k++ {
		b[k] = ' '
	}
}
