package card_test

import (
	"strings"
	"testing"

	"github.com/graphnb/graphnb/internal/card"
	"github.com/graphnb/graphnb/internal/card/cardtest"
)

func TestCard(t *testing.T) {
	h := card.New("a<b").Row("x&y", `"q"`).
		Rates(1.5e9, 3e9).
		Table("cap<", []string{"k", "v"}, [][]string{{"<1>", "2"}, {"3"}, {"4", "5", "dropped"}}).
		RawHTML("<svg></svg>").HTML()
	cardtest.CheckHTML(t, h)
	for _, want := range []string{"a&lt;b", "x&amp;y", "&#34;q&#34;", ">Graph500 TEPS<", ">1.5 GTEPS<", ">arcs/s<", ">3 G arcs/s<",
		"cap&lt;", "&lt;1&gt;", "<td style=\"text-align:right;padding:0 0 0 12px\"></td>", "<svg></svg>"} {
		if !strings.Contains(h, want) {
			t.Errorf("card lacks %q:\n%s", want, h)
		}
	}
	if strings.Contains(h, "dropped") {
		t.Errorf("a cell beyond the header was kept")
	}
	var zero card.Card
	cardtest.CheckHTML(t, zero.HTML())
}

func TestCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1048576: "1,048,576",
		-1234567: "-1,234,567", 100000: "100,000"} {
		if got := card.Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSI(t *testing.T) {
	if card.SI(12) != "12 " || card.SI(1500) != "1.5 k" || card.SI(3e12) != "3 T" || card.SI(1.234e9) != "1.23 G" {
		t.Fatalf("SI: %q %q %q %q", card.SI(12), card.SI(1500), card.SI(3e12), card.SI(1.234e9))
	}
}

func TestWellFormedRejects(t *testing.T) {
	for _, bad := range []string{"<div>", "<b><i></b></i>", "<p a=1></p>", "&nbsp;", "<script></script>"} {
		if cardtest.WellFormed(bad) == nil {
			t.Errorf("WellFormed(%q) = nil, want an error", bad)
		}
	}
}

func TestBytes(t *testing.T) {
	for _, c := range []struct {
		b    int64
		want string
	}{{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"}, {5 << 20, "5.0 MiB"}, {3 << 30, "3.0 GiB"}, {2 << 40, "2.0 TiB"}, {2 << 50, "2048.0 TiB"}} {
		if got := card.Bytes(c.b); got != c.want {
			t.Errorf("Bytes(%d) = %q, want %q", c.b, got, c.want)
		}
	}
}
