package graphio_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/graph/graphio"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// allocatedBytes returns the bytes fn allocates on the heap.
func allocatedBytes(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// hugeBinaryHeader returns a valid binary header declaring n vertices and
// a float32-weighted arcs, with no data after it.
func hugeBinaryHeader(t testing.TB, n, arcs uint64) []byte {
	t.Helper()
	h := make([]byte, 40)
	copy(h, "\x89GNB\r\n\x1a\n")
	binary.LittleEndian.PutUint32(h[8:], 1)
	binary.LittleEndian.PutUint32(h[12:], 1|1<<8)
	binary.LittleEndian.PutUint64(h[16:], n)
	binary.LittleEndian.PutUint64(h[24:], arcs)
	binary.LittleEndian.PutUint32(h[32:], crc32.Checksum(h[:32], castagnoli))
	return h
}

// reseal recomputes both checksums of a binary encoding after a test has
// edited it, so only the edit itself can make it fail.
func reseal(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[32:], crc32.Checksum(b[:32], castagnoli))
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[40:len(b)-4], castagnoli))
	return b
}

func encode(t testing.TB, g *graph.CSR) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := graphio.WriteBinary(&buf, g); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestBinaryRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		g    *graph.CSR
	}{
		{"rmat_s10_f32", rmat(t, 10, 8)},
		{"rmat_s10_f64", rmat(t, 10, 8, gen.Float64())},
		{"rmat_s10_unweighted", rmat(t, 10, 8, gen.Unweighted())},
		{"directed_odd_arcs", randomDirected(t, 3, 100, 301, false, false)},
		{"directed_f64", randomDirected(t, 4, 100, 300, false, true)},
		{"empty", mustBuild(t, 0, nil, true, false, false)},
		{"isolated", mustBuild(t, 5, nil, false, false, false)},
		{"one arc f64", mustBuild(t, 2, [][3]float64{{1, 0, math.Pi}}, true, true, false)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "directed_odd_arcs" && c.g.NumArcs()%2 != 1 {
				t.Fatalf("want an odd arc count to exercise padding, got %d", c.g.NumArcs())
			}
			data := encode(t, c.g)
			wantLen := 40 + 8*(c.g.NumVertices()+1) + 4*int(c.g.NumArcs()) + 4
			wantLen += 4 * int(c.g.NumArcs()%2)
			wantLen += 4*len(c.g.Weights) + 8*len(c.g.Weights64)
			if len(data) != wantLen {
				t.Errorf("encoding is %d bytes, want %d", len(data), wantLen)
			}
			for _, sized := range []bool{true, false} {
				var r io.Reader = bytes.NewReader(data)
				if !sized {
					r = onlyReader{r}
				}
				h, err := graphio.ReadBinary(r)
				if err != nil {
					t.Fatal(err)
				}
				if d := diffCSR(c.g, h); d != "" {
					t.Fatalf("sized=%v: %s", sized, d)
				}
			}
		})
	}
}

// TestBinaryLarge reads an encoding of several blocks both ways: through
// a reader that hides its size (sequential blocks, slices that grow) and
// through a bytes.Reader (parallel positioned reads, combined checksums).
func TestBinaryLarge(t *testing.T) {
	g := rmat(t, 15, 16, gen.Float64())
	data := encode(t, g)
	if len(g.Weights64)*8 <= 4<<20 {
		t.Fatalf("encoding of %d bytes is too small to need several blocks", len(data))
	}
	for _, sized := range []bool{true, false} {
		var r io.Reader = bytes.NewReader(data)
		if !sized {
			r = onlyReader{r}
		}
		h, err := graphio.ReadBinary(r)
		if err != nil {
			t.Fatal(err)
		}
		if d := diffCSR(g, h); d != "" {
			t.Fatalf("sized=%v: %s", sized, d)
		}
		// A flipped bit in a late block is caught by the combined checksum.
		bad := bytes.Clone(data)
		bad[len(bad)-1000] ^= 8
		r = bytes.NewReader(bad)
		if !sized {
			r = onlyReader{r}
		}
		if _, err := graphio.ReadBinary(r); !errors.Is(err, graphio.ErrChecksum) {
			t.Errorf("sized=%v: late bit flip gave %v, want ErrChecksum", sized, err)
		}
	}
	// An input that claims more bytes than it delivers.
	if _, err := graphio.ReadBinary(lyingReader{bytes.NewReader(data[:len(data)-5000]), len(data)}); !errors.Is(err, graphio.ErrTruncated) {
		t.Errorf("short positioned read gave %v, want ErrTruncated", err)
	}
}

// lyingReader reports a larger size than it holds.
type lyingReader struct {
	*bytes.Reader
	n int
}

func (l lyingReader) Len() int { return l.n }

// TestBinaryReadsExactly reads two graphs written one after the other.
func TestBinaryReadsExactly(t *testing.T) {
	a, b := rmat(t, 6, 4), randomDirected(t, 1, 40, 99, true, true)
	r := bytes.NewReader(append(encode(t, a), encode(t, b)...))
	for _, want := range []*graph.CSR{a, b} {
		got, err := graphio.ReadBinary(r)
		if err != nil {
			t.Fatal(err)
		}
		if d := diffCSR(want, got); d != "" {
			t.Fatal(d)
		}
	}
	if r.Len() != 0 {
		t.Fatalf("%d bytes left", r.Len())
	}
}

func TestBinaryOptions(t *testing.T) {
	d := randomDirected(t, 2, 50, 200, false, false)
	g, err := graphio.ReadBinaryWith(bytes.NewReader(encode(t, d)), graphio.ReadOptions{Symmetrize: true, Float64: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffCSR(d.Undirected().WithFloat64Weights(), g); diff != "" {
		t.Fatal(diff)
	}
}

func TestBinaryBad(t *testing.T) {
	var g *graph.CSR
	for seed := uint64(5); g == nil || g.NumArcs()%2 != 1; seed++ {
		g = randomDirected(t, seed, 20, 61, false, false) // odd arcs: padding present
	}
	good := encode(t, g)
	n := g.NumVertices()
	adjAt := 40 + 8*(n+1)
	padAt := adjAt + 4*int(g.NumArcs())
	wAt := padAt + 4
	edit := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	cases := []struct {
		name string
		in   []byte
		opt  graphio.ReadOptions
		want error
	}{
		{"empty", nil, graphio.ReadOptions{}, graphio.ErrHeader},
		{"short header", good[:20], graphio.ReadOptions{}, graphio.ErrTruncated},
		{"text", []byte("p sp 3 2\na 1 2 3\na 2 3 4\n" + string(make([]byte, 40))), graphio.ReadOptions{}, graphio.ErrHeader},
		{"short text", []byte("0 1\n"), graphio.ReadOptions{}, graphio.ErrHeader},
		{"bad magic", edit(func(b []byte) []byte { b[1] = 'X'; return b }), graphio.ReadOptions{}, graphio.ErrHeader},
		{"header bit flip", edit(func(b []byte) []byte { b[17] ^= 4; return b }), graphio.ReadOptions{}, graphio.ErrChecksum},
		{"version 2", edit(func(b []byte) []byte { b[8] = 2; return reseal(b) }), graphio.ReadOptions{}, graphio.ErrUnsupported},
		{"unknown flag", edit(func(b []byte) []byte { b[12] |= 2; return reseal(b) }), graphio.ReadOptions{}, graphio.ErrHeader},
		{"unknown weight kind", edit(func(b []byte) []byte { b[13] = 3; return reseal(b) }), graphio.ReadOptions{}, graphio.ErrHeader},
		{"reserved set", edit(func(b []byte) []byte { b[36] = 1; return reseal(b) }), graphio.ReadOptions{}, graphio.ErrHeader},
		{"N above limit", good, graphio.ReadOptions{MaxVertices: n - 1}, graphio.ErrTooLarge},
		{"arcs above limit", good, graphio.ReadOptions{MaxEdges: g.NumArcs() - 1}, graphio.ErrTooLarge},
		{"N above int32", hugeBinaryHeader(t, 1<<31, 0), graphio.ReadOptions{}, graphio.ErrTooLarge},
		{"arcs above default", hugeBinaryHeader(t, 3, 1<<33+1), graphio.ReadOptions{}, graphio.ErrTooLarge},
		{"truncated in offsets", good[:50], graphio.ReadOptions{}, graphio.ErrTruncated},
		{"truncated in adjacency", good[:adjAt+9], graphio.ReadOptions{}, graphio.ErrTruncated},
		{"truncated in weights", good[:wAt+3], graphio.ReadOptions{}, graphio.ErrTruncated},
		{"truncated checksum", good[:len(good)-1], graphio.ReadOptions{}, graphio.ErrTruncated},
		{"data bit flip", edit(func(b []byte) []byte { b[adjAt+5] ^= 1; return b }), graphio.ReadOptions{}, graphio.ErrChecksum},
		{"checksum bit flip", edit(func(b []byte) []byte { b[len(b)-1] ^= 0x80; return b }), graphio.ReadOptions{}, graphio.ErrChecksum},
		{"forged head out of range", edit(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[adjAt+4:], uint32(n))
			return reseal(b)
		}), graphio.ReadOptions{}, graphio.ErrCorrupt},
		{"forged negative head", edit(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[adjAt:], 0xffffffff)
			return reseal(b)
		}), graphio.ReadOptions{}, graphio.ErrCorrupt},
		{"forged offsets decrease", edit(func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[40+8*3:], 1<<40)
			return reseal(b)
		}), graphio.ReadOptions{}, graphio.ErrCorrupt},
		{"forged first offset", edit(func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[40:], 1)
			return reseal(b)
		}), graphio.ReadOptions{}, graphio.ErrCorrupt},
		{"forged NaN weight", edit(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[wAt+8:], math.Float32bits(float32(math.NaN())))
			return reseal(b)
		}), graphio.ReadOptions{}, graphio.ErrCorrupt},
		{"forged padding", edit(func(b []byte) []byte { b[padAt] = 1; return reseal(b) }), graphio.ReadOptions{}, graphio.ErrCorrupt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, sized := range []bool{true, false} {
				var r io.Reader = bytes.NewReader(c.in)
				if !sized {
					r = onlyReader{r}
				}
				c.opt.Name = "g.gnb"
				h, err := graphio.ReadBinaryWith(r, c.opt)
				if err == nil {
					t.Fatalf("sized=%v: no error, got %v", sized, h)
				}
				var pe *graphio.ParseError
				if !errors.Is(err, c.want) || !errors.As(err, &pe) {
					t.Fatalf("sized=%v: error %q, want a *ParseError wrapping %q", sized, err, c.want)
				}
				if pe.File != "g.gnb" || pe.Line != 0 {
					t.Errorf("position %q:%d, want g.gnb:0", pe.File, pe.Line)
				}
				if c.want == graphio.ErrTruncated && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("truncation error %q does not wrap io.ErrUnexpectedEOF", err)
				}
			}
		})
	}
}

func TestWriteBinaryRejectsBrokenCSR(t *testing.T) {
	for name, g := range map[string]*graph.CSR{
		"no offsets":      {},
		"short adj":       {Offsets: []int64{0, 2}, Adj: []int32{0}},
		"short weights":   {Offsets: []int64{0, 1}, Adj: []int32{0}, Weights: []float32{}},
		"both weights":    {Offsets: []int64{0, 1}, Adj: []int32{0}, Weights: []float32{1}, Weights64: []float64{1}},
		"offsets go back": {Offsets: []int64{0, 2, 1, 2}, Adj: []int32{0, 0}},
	} {
		for _, f := range formats {
			if err := f.write(io.Discard, g); err == nil {
				t.Errorf("%s/%s: no error", name, f.name)
			}
		}
	}
}

func TestLoadSave(t *testing.T) {
	dir := t.TempDir()
	g := randomDirected(t, 9, 300, 2000, true, false)
	u := rmat(t, 8, 8, gen.Integer(1000))
	for _, ext := range []string{".gr", ".mtx", ".txt", ".el", ".edges", ".snap", ".gnb", ".GNB", ".gr.gz", ".mtx.gz", ".txt.gz", ".gnb.gz"} {
		for _, c := range []struct {
			name string
			g    *graph.CSR
		}{{"directed", g}, {"undirected", u}} {
			t.Run(c.name+ext, func(t *testing.T) {
				path := filepath.Join(dir, c.name+ext)
				if err := graphio.Save(path, c.g); err != nil {
					t.Fatal(err)
				}
				f, err := graphio.FormatOf(path)
				if err != nil {
					t.Fatal(err)
				}
				h, err := graphio.Load(path, graphio.ReadOptions{Symmetrize: !c.g.Directed && f == graphio.FormatDIMACS})
				if err != nil {
					t.Fatal(err)
				}
				if d := diffCSR(c.g, h); d != "" {
					t.Fatal(d)
				}
			})
		}
	}
	// Save leaves no temporary files behind.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 24 {
		t.Errorf("%d files in the directory, want 24", len(entries))
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	good := encode(t, rmat(t, 6, 4))
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := graphio.Load(write("trailing.gnb", append(bytes.Clone(good), 0)), graphio.ReadOptions{}); !errors.Is(err, graphio.ErrCorrupt) {
		t.Errorf("trailing data: %v, want ErrCorrupt", err)
	}
	if _, err := graphio.Load(write("short.gnb", good[:len(good)-10]), graphio.ReadOptions{}); !errors.Is(err, graphio.ErrTruncated) {
		t.Errorf("short file: %v, want ErrTruncated", err)
	}
	if _, err := graphio.Load(write("notgz.gr.gz", []byte("p sp 1 0\n")), graphio.ReadOptions{}); !errors.Is(err, graphio.ErrHeader) {
		t.Errorf("not gzip: %v, want ErrHeader", err)
	}
	var pe *graphio.ParseError
	p := write("bad.gr", []byte("p sp 2 1\na 1 3 1\n"))
	if _, err := graphio.Load(p, graphio.ReadOptions{}); !errors.As(err, &pe) || pe.File != p || pe.Line != 2 {
		t.Errorf("bad.gr: %v, want a ParseError naming %s line 2", err, p)
	}
	if _, err := graphio.Load(filepath.Join(dir, "missing.gr"), graphio.ReadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want os.ErrNotExist", err)
	}
	if _, err := graphio.Load("graph.csv", graphio.ReadOptions{}); !errors.Is(err, graphio.ErrFormat) {
		t.Errorf("graph.csv: %v, want ErrFormat", err)
	}
	if err := graphio.Save(filepath.Join(dir, "g.csv"), rmat(t, 4, 2)); !errors.Is(err, graphio.ErrFormat) {
		t.Errorf("Save g.csv: %v, want ErrFormat", err)
	}
	if err := graphio.Save(filepath.Join(dir, "nodir", "g.gr"), rmat(t, 4, 2)); err == nil {
		t.Error("Save into a missing directory: no error")
	}
	// A failed Save leaves no file behind, not even a partial one.
	bad := rmat(t, 4, 2) // uniform real weights: not DIMACS
	if err := graphio.Save(filepath.Join(dir, "real.gr"), bad); !errors.Is(err, graphio.ErrWeight) {
		t.Errorf("Save real weights as .gr: %v, want ErrWeight", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "real.gr")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("failed Save left real.gr behind (%v)", err)
	}
}

func TestFormatOf(t *testing.T) {
	for path, want := range map[string]graphio.Format{
		"a/rome99.gr": graphio.FormatDIMACS, "x.MTX": graphio.FormatMatrixMarket, "x.mtx.gz": graphio.FormatMatrixMarket,
		"roadNet-CA.txt": graphio.FormatEdgeList, "x.el": graphio.FormatEdgeList, "x.edges.GZ": graphio.FormatEdgeList,
		"x.snap": graphio.FormatEdgeList, "s24.gnb": graphio.FormatBinary, "s24.gnb.gz": graphio.FormatBinary,
	} {
		got, err := graphio.FormatOf(path)
		if err != nil || got != want {
			t.Errorf("FormatOf(%q) = %v, %v; want %v", path, got, err, want)
		}
	}
	for _, path := range []string{"x", "x.gz", "x.csv", "x.gr.bz2", "gr"} {
		if f, err := graphio.FormatOf(path); !errors.Is(err, graphio.ErrFormat) || f != graphio.FormatUnknown {
			t.Errorf("FormatOf(%q) = %v, %v; want ErrFormat", path, f, err)
		}
	}
	names := map[graphio.Format]string{graphio.FormatDIMACS: "DIMACS", graphio.FormatMatrixMarket: "MatrixMarket",
		graphio.FormatEdgeList: "EdgeList", graphio.FormatBinary: "Binary", graphio.Format(9): "Format(9)"}
	for f, s := range names {
		if f.String() != s {
			t.Errorf("String() = %q, want %q", f.String(), s)
		}
		if g, err := graphio.FormatOf("x" + f.Extension()); f <= graphio.FormatBinary && (err != nil || g != f) {
			t.Errorf("FormatOf(x%s) = %v, %v; want %v", f.Extension(), g, err, f)
		}
	}
	if _, err := graphio.Read(bytes.NewReader(nil), graphio.Format(9), graphio.ReadOptions{}); !errors.Is(err, graphio.ErrFormat) {
		t.Errorf("Read with Format(9): %v", err)
	}
	if err := graphio.Write(io.Discard, graphio.FormatUnknown, rmat(t, 4, 2)); !errors.Is(err, graphio.ErrFormat) {
		t.Errorf("Write with FormatUnknown: %v", err)
	}
}
