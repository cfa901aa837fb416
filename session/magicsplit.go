package session

import "strings"

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
