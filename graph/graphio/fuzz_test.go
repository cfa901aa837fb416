package graphio_test

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/graph/graphio"
)

// fuzzLimits keep each fuzz input cheap: a few thousand vertices at most.
var fuzzLimits = graphio.ReadOptions{MaxVertices: 1 << 12, MaxEdges: 1 << 16}

// fuzzing reports whether the test binary runs a fuzzer (-test.fuzz).
func fuzzing() bool {
	fl := flag.Lookup("test.fuzz")
	return fl != nil && fl.Value.String() != ""
}

// addFiles seeds a fuzz corpus with test files. Under plain go test the
// whole files are seeds (so every run checks parse → write → parse on
// them). While fuzzing, only each file's first lines are: the fuzzer
// minimizes every input that finds new coverage, and minimizing a 135 KB
// file takes its full minute per input, which stalls the run.
func addFiles(f *testing.F, names ...string) {
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dataDir, n))
		if err != nil {
			f.Fatal(err)
		}
		if fuzzing() {
			data = head(data, 2048)
		}
		f.Add(data)
	}
}

// shortened returns the test file's header and its first k entries, with
// the header's count (the last field of the line starting with
// countLine) changed to k: a small, valid sample of the real file.
func shortened(f *testing.F, name string, isCount func(line string) bool, k int) []byte {
	data, err := os.ReadFile(filepath.Join(dataDir, name))
	if err != nil {
		f.Fatal(err)
	}
	var out bytes.Buffer
	entries := -1
	for _, line := range strings.SplitAfter(string(data), "\n") {
		switch {
		case entries >= 0:
			if entries == k {
				return out.Bytes()
			}
			entries++
		case isCount(line):
			fields := strings.Fields(line)
			line = strings.Join(fields[:len(fields)-1], " ") + " " + strconv.Itoa(k) + "\n"
			entries = 0
		}
		out.WriteString(line)
	}
	return out.Bytes()
}

// head returns the lines of data that fit in max bytes.
func head(data []byte, max int) []byte {
	if len(data) <= max {
		return data
	}
	data = data[:max]
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
	}
	return data
}

// fuzzRoundTrip is the body shared by the fuzzers: parse; if that works,
// the graph must be valid, and writing it and parsing the output must
// give the same graph. Every error for an in-memory input must be a
// *ParseError.
func fuzzRoundTrip(t *testing.T, data []byte, read readFunc, write func(io.Writer, *graph.CSR) error, reread graphio.ReadOptions) {
	opt := fuzzLimits
	opt.Float64 = len(data)%2 == 1
	g, err := read(bytes.NewReader(data), opt)
	if err != nil {
		var pe *graphio.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("error %q is not a *ParseError", err)
		}
		if pe.Line < 0 || pe.Column < 0 {
			t.Fatalf("negative position in %q", err)
		}
		return
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("reader returned an invalid graph: %v", err)
	}
	var buf bytes.Buffer
	if err := write(&buf, g); err != nil {
		t.Fatalf("writing the parsed graph: %v", err)
	}
	opt.Symmetrize = reread.Symmetrize && !g.Directed
	h, err := read(bytes.NewReader(buf.Bytes()), opt)
	if err != nil {
		t.Fatalf("re-reading the written graph: %v\n%s", err, buf.Bytes())
	}
	if g.NumArcs() == 0 && h.NumArcs() == 0 {
		// An edge list without edges cannot say whether it is weighted
		// (WriteEdgeList documents it): compare without the weight kind.
		g, h = g.WithFloat64Weights(), h.WithFloat64Weights()
	}
	if d := diffCSR(g, h); d != "" {
		t.Fatalf("parse → write → parse changed the graph: %s", d)
	}
}

func FuzzReadDIMACS(f *testing.F) {
	addFiles(f, "rome99.gr")
	f.Add(shortened(f, "rome99.gr", func(l string) bool { return strings.HasPrefix(l, "p ") }, 20))
	for _, s := range []string{
		"p sp 3 2\na 1 2 5\na 2 3 7\n",
		"c x\r\np sp 3 3\r\na 1 2 -5\r\na 1 2 4\r\na 3 3 1",
		"p sp 2 1\na 1 2 9007199254740992\n",
		"p sp 0 0\n",
		"p sp 4096 0\n",
		"a 1 2 3\n",
		"p sp 2 1\na 1 2 1.5\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRoundTrip(t, data, graphio.ReadDIMACS,
			func(w io.Writer, g *graph.CSR) error { return graphio.WriteDIMACS(w, g, "fuzz") },
			graphio.ReadOptions{Symmetrize: true})
	})
}

func FuzzReadMatrixMarket(f *testing.F) {
	addFiles(f, "karate.mtx", "netscience.mtx")
	sizeLine := func(l string) bool { return l != "" && l[0] >= '0' && l[0] <= '9' }
	f.Add(shortened(f, "karate.mtx", sizeLine, 10))
	f.Add(shortened(f, "netscience.mtx", sizeLine, 10))
	for _, s := range []string{
		"%%MatrixMarket matrix coordinate real general\n3 3 2\n2 1 2.5\n3 2 -1\n",
		"%%MatrixMarket matrix coordinate integer symmetric\r\n% c\r\n3 3 2\r\n2 1 7\r\n1 3 -1\r\n",
		"%%matrixmarket MATRIX coordinate PATTERN general\n2 2 1\n1 2\n",
		"%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n2 1 1e-45\n",
		"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
		"%%MatrixMarket matrix coordinate real general\n0 0 0\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRoundTrip(t, data, graphio.ReadMatrixMarket,
			func(w io.Writer, g *graph.CSR) error { return graphio.WriteMatrixMarket(w, g, "fuzz") },
			graphio.ReadOptions{})
	})
}

func FuzzReadEdgeList(f *testing.F) {
	for _, s := range []string{
		"0 1\n1 2\n",
		"# Undirected graph\n# Nodes: 4 Edges: 2\n0\t1\t0.5\n3\t2\t-1e10\n",
		"# Nodes: 5 Edges: 1\r\n4 0 7\r\n",
		"0 1 1\n1 2\n",
		"# FromNodeId ToNodeId\n10 3 0.1\n3 10 0.2\n",
		"",
	} {
		f.Add([]byte(s))
	}
	// The test files rewritten as edge lists.
	for _, n := range []string{"karate.mtx", "netscience.mtx"} {
		g, err := graphio.Load(filepath.Join(dataDir, n), graphio.ReadOptions{})
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		if err := graphio.WriteEdgeList(&buf, g); err != nil {
			f.Fatal(err)
		}
		if fuzzing() {
			f.Add(head(buf.Bytes(), 2048))
			continue
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRoundTrip(t, data, graphio.ReadEdgeList,
			func(w io.Writer, g *graph.CSR) error { return graphio.WriteEdgeList(w, g, "fuzz") },
			graphio.ReadOptions{})
	})
}

func FuzzReadBinary(f *testing.F) {
	files := []string{"rome99.gr", "karate.mtx", "netscience.mtx"}
	if fuzzing() {
		files = files[1:2] // see addFiles
	}
	for _, n := range files {
		g, err := graphio.Load(filepath.Join(dataDir, n), graphio.ReadOptions{})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(encode(f, g))
	}
	for _, g := range []*graph.CSR{
		rmat(f, 5, 4, gen.Float64()),
		rmat(f, 4, 2, gen.Unweighted()),
		randomDirected(f, 1, 10, 21, false, false),
		mustBuild(f, 0, nil, false, false, false),
	} {
		f.Add(encode(f, g))
	}
	f.Add(hugeBinaryHeader(f, 1<<31-2, 1<<33))
	f.Add([]byte("\x89GNB\r\n\x1a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRoundTrip(t, data, graphio.ReadBinaryWith, graphio.WriteBinary, graphio.ReadOptions{})
		// Random bytes almost never pass the checksums; fix them up so the
		// fuzzer also reaches the size checks and the CSR validation.
		if len(data) >= 44 {
			fuzzRoundTrip(t, reseal(bytes.Clone(data)), graphio.ReadBinaryWith, graphio.WriteBinary, graphio.ReadOptions{})
		}
	})
}
