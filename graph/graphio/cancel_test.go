package graphio_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/graph/graphio"
	"github.com/graphnb/graphnb/internal/canceltest"
)

// TestReadersStopOnInterrupt interrupts the text readers on a graph of
// 2 M edges 20 ms after they start and checks that each returns cancel's
// error within canceltest.Bound with no worker left (issue 13, case 7).
// (TestCancel checks the binary reader and the writers.)
func TestReadersStopOnInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 2 M-edge graph")
	}
	g, err := gen.RMAT(17, 16, gen.Integer(100), gen.Seed(2))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []graphio.Format{graphio.FormatDIMACS, graphio.FormatEdgeList, graphio.FormatMatrixMarket} {
		var buf bytes.Buffer
		if err := graphio.Write(&buf, f, g); err != nil {
			t.Fatal(err)
		}
		t.Run(f.String(), func(t *testing.T) {
			canceltest.Interrupt(t, 20*time.Millisecond, func() error {
				_, err := graphio.Read(bytes.NewReader(buf.Bytes()), f, graphio.ReadOptions{})
				return err
			})
		})
	}
}
