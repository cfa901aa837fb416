package complete

import (
	"go/scanner"
	"go/token"
	"strings"
	"unicode"
	"unicode/utf8"
)

// byteOffset converts a position in code points (as Jupyter counts) to a
// byte offset in s, clamped to [0, len(s)]. Each byte of invalid UTF-8
// counts as one code point, as in a range loop.
func byteOffset(s string, cp int) int {
	if cp <= 0 {
		return 0
	}
	n := 0
	for i := range s {
		if n == cp {
			return i
		}
		n++
	}
	return len(s)
}

// codePoints converts a byte offset in s to a position in code points.
func codePoints(s string, b int) int {
	return utf8.RuneCountInString(s[:b])
}

func isIdentRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// identBefore returns the start of the identifier characters that end at
// byte offset b.
func identBefore(s string, b int) int {
	for b > 0 {
		r, w := utf8.DecodeLastRuneInString(s[:b])
		if !isIdentRune(r) {
			break
		}
		b -= w
	}
	return b
}

// identAfter returns the end of the identifier characters that start at
// byte offset b.
func identAfter(s string, b int) int {
	for b < len(s) {
		r, w := utf8.DecodeRuneInString(s[b:])
		if !isIdentRune(r) {
			break
		}
		b += w
	}
	return b
}

// isIdent reports whether s is a Go identifier (not starting with a digit).
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || unicode.IsLetter(r)
}

func skipSpaceBefore(s string, b int) int {
	for b > 0 && (s[b-1] == ' ' || s[b-1] == '\t' || s[b-1] == '\n' || s[b-1] == '\r') {
		b--
	}
	return b
}

// selectorChain returns the identifiers of the selector expression that
// ends just before byte offset b, where b is the start of the fragment
// being completed: for "a.b.c" with b after the last dot it returns
// ["a", "b"]. It returns nil, true when no dot precedes b, and ok=false
// when a dot follows something other than an identifier (a call, an index,
// a number), which this package does not evaluate.
func selectorChain(s string, b int) (chain []string, ok bool) {
	for {
		p := skipSpaceBefore(s, b)
		if p == 0 || s[p-1] != '.' {
			if chain == nil {
				return nil, true
			}
			return chain, true
		}
		p = skipSpaceBefore(s, p-1)
		start := identBefore(s, p)
		id := s[start:p]
		if !isIdent(id) {
			return nil, false
		}
		chain = append([]string{id}, chain...)
		b = start
	}
}

// inCommentOrString reports whether byte offset b of src falls inside a
// comment or a string or rune literal (where nothing is completed).
func inCommentOrString(src string, b int) bool {
	head := src[:b]
	if !strings.ContainsAny(head, "/\"'`") {
		return false
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(head))
	lastErr := -1 // offset of the last "… not terminated" error
	var s scanner.Scanner
	s.Init(file, []byte(head), func(pos token.Position, msg string) {
		if strings.Contains(msg, "not terminated") {
			lastErr = pos.Offset
		}
	}, scanner.ScanComments)
	lastTok, lastOff := token.ILLEGAL, 0
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue
		}
		lastTok, lastOff = tok, file.Offset(pos)
	}
	rest := head[lastOff:]
	switch lastTok {
	case token.COMMENT:
		if strings.HasPrefix(rest, "//") {
			return !strings.Contains(rest, "\n") // a line comment runs to the end of its line
		}
		return lastErr >= lastOff // an open block comment
	case token.STRING, token.CHAR:
		if lastErr < lastOff {
			return false // terminated before the cursor
		}
		// An open raw string runs to the cursor; an interpreted string or
		// rune literal stops at the end of its line.
		return strings.HasPrefix(rest, "`") || !strings.Contains(rest, "\n")
	}
	return false
}

// magicLine reports whether the line holding byte offset b starts (after
// blanks) with %, and returns the byte offsets of that line's first word.
func magicLine(s string, b int) (wordStart, wordEnd int, ok bool) {
	ls := strings.LastIndexByte(s[:b], '\n') + 1
	i := ls
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i >= len(s) || s[i] != '%' {
		return 0, 0, false
	}
	j := i
	for j < len(s) && s[j] == '%' {
		j++
	}
	j = identAfter(s, j)
	return i, j, true
}

// inCellMagicBody reports whether byte offset b lies after the first line
// of a cell that starts with %% (a cell magic whose body is not Go).
func inCellMagicBody(s string, b int) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	if !strings.HasPrefix(t, "%%") {
		return false
	}
	first := len(s) - len(t)
	nl := strings.IndexByte(s[first:], '\n')
	return nl >= 0 && b > first+nl
}
