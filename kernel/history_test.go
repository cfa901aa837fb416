package kernel

import "testing"

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true},
		{"*", "anything\nat/all", true},
		{"", "", true},
		{"", "x", false},
		{"a*", "abc", true},
		{"a*", "bac", false},
		{"*c", "abc", true},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"a?c", "aéc", true},
		{"*fmt.Print*", "x := 1\nfmt.Println(x)", true},
		{"a*b*c", "a-b-b-c", true},
		{"a*b*c", "a-b-b-d", false},
		{"**", "x", true},
		{"a", "A", false},
	}
	for _, tc := range tests {
		if got := globMatch(tc.pattern, tc.s); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

func TestHistoryQueryEdges(t *testing.T) {
	h := history{session: 1}
	for i, code := range []string{"x", "y", "x", "z"} {
		h.add(i+1, code)
	}
	zero, neg := 0, -3
	tests := []struct {
		name string
		req  historyRequest
		want int
	}{
		{"tail default n", historyRequest{HistAccessType: "tail"}, 4},
		{"tail n 0", historyRequest{HistAccessType: "tail", N: &zero}, 0},
		{"tail negative n", historyRequest{HistAccessType: "tail", N: &neg}, 0},
		{"range stop 0 means to the end", historyRequest{HistAccessType: "range", Start: 2, Stop: &zero}, 3},
		{"range of another session", historyRequest{HistAccessType: "range", Session: 7}, 0},
		{"search unique keeps the latest", historyRequest{HistAccessType: "search", Pattern: "x", Unique: true}, 1},
		{"search empty pattern matches all", historyRequest{HistAccessType: "search"}, 4},
		{"unknown access type", historyRequest{HistAccessType: "sideways"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := h.query(tc.req)
			if len(got) != tc.want {
				t.Errorf("%d entries %v, want %d", len(got), got, tc.want)
			}
			if got == nil {
				t.Error("nil history: would encode as null")
			}
		})
	}
	if got := h.query(historyRequest{HistAccessType: "search", Pattern: "x", Unique: true}); got[0][1] != 3 {
		t.Errorf("unique search returned line %v, want the latest (3)", got[0][1])
	}
}
