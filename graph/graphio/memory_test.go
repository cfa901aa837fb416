package graphio_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/graph/graphio"
	"github.com/graphnb/graphnb/internal/membudget"
)

// TestTooLargeIsRefused checks, under a fake budget (GRAPHNB_MEMORY),
// that the readers refuse a graph that does not fit in memory (issue 13,
// case 7c): from the header's counts when the input's size is known, as
// the entries arrive from a stream, and for a binary file from its
// header. Each refusal is an ErrTooLarge that gives the sizes.
func TestTooLargeIsRefused(t *testing.T) {
	// 1.2 M arcs of text: about 13 MB.
	const m = 1_200_000
	var text strings.Builder
	fmt.Fprintf(&text, "p sp 1000 %d\n", m)
	for i := range m {
		fmt.Fprintf(&text, "a %d %d 1\n", 1+i%1000, 1+(i*7)%1000)
	}
	g, err := gen.RMAT(16, 16, gen.Seed(1))
	if err != nil {
		t.Fatal(err)
	}
	var bin bytes.Buffer
	if err := graphio.WriteBinary(&bin, g); err != nil {
		t.Fatal(err)
	}
	t.Setenv(membudget.EnvVar, "4MiB")
	for _, c := range []struct {
		name string
		read func() error
	}{
		{"DIMACS, sized", func() error {
			_, err := graphio.ReadDIMACS(strings.NewReader(text.String()), graphio.ReadOptions{})
			return err
		}},
		{"DIMACS, stream", func() error {
			_, err := graphio.ReadDIMACS(onlyReader{strings.NewReader(text.String())}, graphio.ReadOptions{})
			return err
		}},
		{"binary, sized", func() error {
			_, err := graphio.ReadBinary(bytes.NewReader(bin.Bytes()))
			return err
		}},
		{"binary, stream", func() error {
			_, err := graphio.ReadBinary(onlyReader{bytes.NewReader(bin.Bytes())})
			return err
		}},
	} {
		err := c.read()
		if !errors.Is(err, graphio.ErrTooLarge) || !errors.Is(err, membudget.ErrTooLarge) ||
			!strings.Contains(err.Error(), "needs about") || !strings.Contains(err.Error(), "is available") {
			t.Errorf("%s: %v, want a membudget refusal wrapped as ErrTooLarge", c.name, err)
		}
	}
	t.Setenv(membudget.EnvVar, "4GiB")
	if _, err := graphio.ReadDIMACS(strings.NewReader(text.String()), graphio.ReadOptions{}); err != nil {
		t.Errorf("under a budget it fits: %v", err)
	}
}
