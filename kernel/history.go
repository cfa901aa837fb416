package kernel

import "unicode/utf8"

// history is the input history of this process (one session). Only the
// shell goroutine touches it.
type history struct {
	session int
	entries []historyEntry
}

type historyEntry struct {
	line   int // the execution count the cell ran under
	code   string
	output *string // text/plain of the cell's execute_result, if any
}

// historyRequest is history_request's content.
type historyRequest struct {
	Output         bool   `json:"output"`
	Raw            bool   `json:"raw"`
	HistAccessType string `json:"hist_access_type"`
	Session        int    `json:"session"`
	Start          int    `json:"start"`
	Stop           *int   `json:"stop"`
	N              *int   `json:"n"`
	Pattern        string `json:"pattern"`
	Unique         bool   `json:"unique"`
}

func (h *history) add(line int, code string) {
	h.entries = append(h.entries, historyEntry{line: line, code: code})
}

// setOutput records the text/plain result of the latest entry, if it has
// that line.
func (h *history) setOutput(line int, text string) {
	if n := len(h.entries); n > 0 && h.entries[n-1].line == line {
		h.entries[n-1].output = &text
	}
}

// query answers a history request with (session, line, input) triples in
// chronological order, or (session, line, [input, output]) with output
// true, where output is the text/plain of the cell's execute_result or
// null:
//   - tail: the last n entries (n defaults to 10);
//   - range: entries of the session (0 or this session's number; a
//     negative number counts back from this session, and earlier sessions
//     are not kept) with start <= line < stop (no stop, or 0: to the end);
//   - search: entries matching the glob pattern (* any run, ? one
//     character, the whole input must match; empty pattern: *), the last
//     n of them when n > 0, keeping only the most recent of equal inputs
//     when unique.
//
// Unknown access types get an empty list.
func (h *history) query(r historyRequest) [][]any {
	out := [][]any{}
	emit := func(e historyEntry) {
		if r.Output {
			var o any
			if e.output != nil {
				o = *e.output
			}
			out = append(out, []any{h.session, e.line, []any{e.code, o}})
			return
		}
		out = append(out, []any{h.session, e.line, e.code})
	}
	switch r.HistAccessType {
	case "tail":
		n := 10
		if r.N != nil {
			n = *r.N
		}
		if n <= 0 {
			return out
		}
		for _, e := range h.entries[max(0, len(h.entries)-n):] {
			emit(e)
		}
	case "range":
		session := r.Session
		if session <= 0 {
			session += h.session
		}
		if session != h.session {
			return out
		}
		for _, e := range h.entries {
			if e.line >= r.Start && (r.Stop == nil || *r.Stop == 0 || e.line < *r.Stop) {
				emit(e)
			}
		}
	case "search":
		pattern := r.Pattern
		if pattern == "" {
			pattern = "*"
		}
		n := 0
		if r.N != nil {
			n = *r.N
		}
		var picked []historyEntry
		seen := map[string]bool{}
		for i := len(h.entries) - 1; i >= 0 && (n <= 0 || len(picked) < n); i-- {
			e := h.entries[i]
			if !globMatch(pattern, e.code) || (r.Unique && seen[e.code]) {
				continue
			}
			seen[e.code] = true
			picked = append(picked, e)
		}
		for i := len(picked) - 1; i >= 0; i-- {
			emit(picked[i])
		}
	}
	return out
}

// globMatch reports whether s matches pattern entirely, where * matches
// any run of characters (newlines and slashes included) and ? any one
// character. Cost O(len(pattern)·len(s)) at worst.
func globMatch(pattern, s string) bool {
	px, sx := 0, 0
	starP, starS := -1, -1
	for sx < len(s) {
		if px < len(pattern) {
			pc, pw := utf8.DecodeRuneInString(pattern[px:])
			switch pc {
			case '*':
				starP, starS = px, sx
				px += pw
				continue
			case '?':
				_, sw := utf8.DecodeRuneInString(s[sx:])
				px += pw
				sx += sw
				continue
			default:
				sc, sw := utf8.DecodeRuneInString(s[sx:])
				if pc == sc {
					px += pw
					sx += sw
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		// Let the last * absorb one more character.
		_, sw := utf8.DecodeRuneInString(s[starS:])
		starS += sw
		px, sx = starP+1, starS
	}
	for px < len(pattern) && pattern[px] == '*' {
		px++
	}
	return px == len(pattern)
}
