package graphio

import (
	"bytes"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/graph"
)

// TestSwappedPath runs the big-endian code path (copy, swap, checksum)
// on this host: a file written with le=false holds every array
// byte-swapped, and reading it with le=false restores the graph.
func TestSwappedPath(t *testing.T) {
	g, err := graph.Build(graph.EdgeList{
		N:         5,
		Src:       []int32{0, 1, 2, 3, 4, 0, 2},
		Dst:       []int32{1, 2, 3, 4, 0, 3, 4},
		Weights64: []float64{1.5, -2, math.Pi, 1e300, 0, 7, 8},
	}, graph.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var native, swapped bytes.Buffer
	if err := writeBinary(&native, g, true); err != nil {
		t.Fatal(err)
	}
	if err := writeBinary(&swapped, g, false); err != nil {
		t.Fatal(err)
	}
	nb, sb := native.Bytes(), swapped.Bytes()
	if len(nb) != len(sb) || !bytes.Equal(nb[:binHeaderSize], sb[:binHeaderSize]) {
		t.Fatal("headers or lengths differ")
	}
	// Offsets section: each 8-byte word reversed.
	for i := binHeaderSize; i < binHeaderSize+8*(g.NumVertices()+1); i += 8 {
		for j := range 8 {
			if nb[i+j] != sb[i+7-j] {
				t.Fatalf("offset word at byte %d is not byte-reversed", i)
			}
		}
	}
	h, err := readBinary(bytes.NewReader(sb), ReadOptions{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !equal(g, h) {
		t.Fatalf("swapped round trip: got %v, want %v", h, g)
	}
	// And the swapped file is not a valid little-endian file.
	if _, err := readBinary(bytes.NewReader(sb), ReadOptions{}, true); err == nil {
		t.Fatal("a byte-swapped file read as valid little-endian data")
	}
}

func equal(a, b *graph.CSR) bool {
	if a.Directed != b.Directed || len(a.Offsets) != len(b.Offsets) || len(a.Adj) != len(b.Adj) {
		return false
	}
	for i := range a.Offsets {
		if a.Offsets[i] != b.Offsets[i] {
			return false
		}
	}
	for k := range a.Adj {
		if a.Adj[k] != b.Adj[k] || a.ArcWeight(int64(k)) != b.ArcWeight(int64(k)) {
			return false
		}
	}
	return (a.Weights == nil) == (b.Weights == nil) && (a.Weights64 == nil) == (b.Weights64 == nil)
}

func TestSwapBytes(t *testing.T) {
	b := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	swapBytes(b, 4)
	if !bytes.Equal(b, []byte{4, 3, 2, 1, 8, 7, 6, 5}) {
		t.Fatalf("size 4: %v", b)
	}
	swapBytes(b, 4)
	swapBytes(b, 8)
	if !bytes.Equal(b, []byte{8, 7, 6, 5, 4, 3, 2, 1}) {
		t.Fatalf("size 8: %v", b)
	}
}

func TestParseNumbers(t *testing.T) {
	for _, c := range []struct {
		in   string
		v    uint64
		want numStatus
	}{
		{"0", 0, numOK}, {"007", 7, numOK}, {"4611686018427387903", 1<<62 - 1, numOK},
		{"4611686018427387904", 0, numOverflow}, {"99999999999999999999999", 0, numOverflow},
		{"", 0, numSyntax}, {"1a", 0, numSyntax}, {"-1", 0, numSyntax}, {"+1", 0, numSyntax},
		{"999999999999999999999x", 0, numSyntax},
	} {
		v, st := parseUint([]byte(c.in))
		if v != c.v || st != c.want {
			t.Errorf("parseUint(%q) = %d, %d; want %d, %d", c.in, v, st, c.v, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		v    int64
		want numStatus
	}{
		{"-9007199254740992", -1 << 53, numOK}, {"+12", 12, numOK}, {"9007199254740993", 0, numOverflow},
		{"-", 0, numSyntax}, {"--1", 0, numSyntax}, {"1.0", 0, numSyntax},
	} {
		v, st := parseInt([]byte(c.in))
		if v != c.v || st != c.want {
			t.Errorf("parseInt(%q) = %d, %d; want %d, %d", c.in, v, st, c.v, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		bits int
		v    float64
		want numStatus
	}{
		{"12", 32, 12, numOK}, {"-12", 64, -12, numOK}, {".5", 32, 0.5, numOK}, {"1e3", 64, 1000, numOK},
		{"0.1", 32, float64(float32(0.1)), numOK}, {"0.1", 64, 0.1, numOK},
		{"16777217", 32, 16777216, numOK}, {"999999999999999", 64, 999999999999999, numOK},
		{"1e39", 32, 0, numOverflow}, {"1e39", 64, 1e39, numOK}, {"-1e309", 64, 0, numOverflow},
		{"nan", 64, 0, numSyntax}, {"NaN", 32, 0, numSyntax}, {"Inf", 64, math.Inf(1), numOK}, {"-infinity", 32, math.Inf(-1), numOK},
		{"", 64, 0, numSyntax}, {"-", 64, 0, numSyntax}, {"1,5", 64, 0, numSyntax}, {strings.Repeat("1", 500), 64, 0, numSyntax},
	} {
		v, st := parseFloat([]byte(c.in), c.bits)
		if v != c.v || st != c.want {
			t.Errorf("parseFloat(%q, %d) = %g, %d; want %g, %d", c.in, c.bits, v, st, c.v, c.want)
		}
	}
}

func TestLimits(t *testing.T) {
	l := (&ReadOptions{}).limits()
	if l.maxV != DefaultMaxVertices || l.maxE != DefaultMaxEdges || !l.guard {
		t.Errorf("defaults: %+v", l)
	}
	l = (&ReadOptions{MaxVertices: 10, MaxEdges: 20}).limits()
	if l.maxV != 10 || l.maxE != 20 || l.guard {
		t.Errorf("explicit: %+v", l)
	}
	l = (&ReadOptions{MaxVertices: math.MaxInt, MaxEdges: math.MaxInt64}).limits()
	if l.maxV != DefaultMaxVertices || l.maxE > math.MaxInt64/32 {
		t.Errorf("clamped: %+v", l)
	}
	if got := sparseLimit(0); got != sparseBase {
		t.Errorf("sparseLimit(0) = %d", got)
	}
	if got := sparseLimit(math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("sparseLimit(max) = %d", got)
	}
	if got := preallocation(1<<40, 80, true, 8); got != 11 {
		t.Errorf("preallocation from a huge count and 80 bytes = %d, want 11", got)
	}
	if got := preallocation(1<<40, 0, false, 8); got != 1<<16 {
		t.Errorf("preallocation of a stream = %d, want 65536", got)
	}
	if got := preallocation(5, 1<<30, true, 8); got != 5 {
		t.Errorf("preallocation of a small count = %d, want 5", got)
	}
}

func TestCRC32Combine(t *testing.T) {
	tab := crc32.MakeTable(crc32.Castagnoli)
	data := make([]byte, 100_003)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	for _, cut := range []int{0, 1, 2, 3, 7, 8, 1000, 65536, 99_999, len(data)} {
		a, b := data[:cut], data[cut:]
		got := crc32Combine(crc32.Checksum(a, tab), crc32.Checksum(b, tab), int64(len(b)))
		if want := crc32.Checksum(data, tab); got != want {
			t.Errorf("cut at %d: combined %08x, want %08x", cut, got, want)
		}
	}
}
