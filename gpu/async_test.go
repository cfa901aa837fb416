//go:build cgo

package gpu

import (
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// checkAsync exercises Pinned and the asynchronous copies of every buffer
// type on d; s is the stream to queue on (nil on the host).
func checkAsync(t *testing.T, d *Device, s *Stream) {
	t.Helper()
	p := must[*Pinned](t)(d.AllocPinned(4003))
	if p.Bytes() != 4003 || p.Device() != d || !strings.HasPrefix(p.String(), "Pinned 3.9 KiB for ") {
		t.Errorf("Pinned: %d bytes, %v, %q", p.Bytes(), p.Device(), p.String())
	}
	if len(p.Int32s()) != 1000 || len(p.Float64s()) != 500 || len(p.Uint8s()) != 4003 || len(p.Uint64s()) != 500 ||
		len(p.Int64s()) != 500 || len(p.Uint32s()) != 1000 || len(p.Float32s()) != 1000 {
		t.Fatalf("view lengths: %d %d %d", len(p.Int32s()), len(p.Float64s()), len(p.Uint8s()))
	}
	for i, v := range p.Uint8s() {
		if v != 0 {
			t.Fatalf("pinned memory not zeroed at byte %d", i)
		}
	}
	sync := func() {
		t.Helper()
		if s != nil {
			if err := s.Synchronize(); err != nil {
				t.Fatal(err)
			}
		}
	}

	// int32: a sub-range up, the whole buffer down.
	h := p.Int32s()
	b := must[*Int32s](t)(d.AllocInt32s(300))
	defer b.Free()
	for i := range 200 {
		h[i] = int32(i*7 - 3)
	}
	if err := b.UploadAsync(s, 100, h[:200]); err != nil {
		t.Fatal(err)
	}
	sync()
	out := h[500:800]
	if err := b.DownloadAsync(s, 0, out); err != nil {
		t.Fatal(err)
	}
	sync()
	for i, v := range out {
		want := int32(0)
		if i >= 100 {
			want = int32((i-100)*7 - 3)
		}
		if v != want {
			t.Fatalf("element %d after a sub-range upload: %d, want %d", i, v, want)
		}
	}
	// a sub-range down into the middle of the pinned memory.
	if err := b.DownloadAsync(s, 150, h[900:950]); err != nil {
		t.Fatal(err)
	}
	sync()
	if h[900] != 50*7-3 || h[949] != 99*7-3 {
		t.Errorf("sub-range download: %d … %d", h[900], h[949])
	}
	if err := b.UploadAsync(s, 300, nil); err != nil {
		t.Errorf("empty copy at the end: %v", err)
	}

	// every other type round-trips.
	roundTrip := func(name string, up, down func() error, check func() bool) {
		t.Helper()
		if err := up(); err != nil {
			t.Fatalf("%s upload: %v", name, err)
		}
		sync()
		if err := down(); err != nil {
			t.Fatalf("%s download: %v", name, err)
		}
		sync()
		if !check() {
			t.Errorf("%s: round trip differs", name)
		}
	}
	{
		v := p.Float32s()
		x := must[*Float32s](t)(d.AllocFloat32s(10))
		defer x.Free()
		copy(v, []float32{1.5, -2, 3})
		roundTrip("float32", func() error { return x.UploadAsync(s, 7, v[:3]) }, func() error { return x.DownloadAsync(s, 7, v[10:13]) },
			func() bool { return slices.Equal(v[10:13], []float32{1.5, -2, 3}) })
	}
	{
		v := p.Float64s()
		x := must[*Float64s](t)(d.AllocFloat64s(4))
		defer x.Free()
		copy(v, []float64{0.25, 1e300})
		roundTrip("float64", func() error { return x.UploadAsync(s, 2, v[:2]) }, func() error { return x.DownloadAsync(s, 2, v[100:102]) },
			func() bool { return slices.Equal(v[100:102], []float64{0.25, 1e300}) })
	}
	{
		v := p.Int64s()
		x := must[*Int64s](t)(d.AllocInt64s(4))
		defer x.Free()
		copy(v, []int64{-1 << 40, 9})
		roundTrip("int64", func() error { return x.UploadAsync(s, 0, v[:2]) }, func() error { return x.DownloadAsync(s, 0, v[200:202]) },
			func() bool { return slices.Equal(v[200:202], []int64{-1 << 40, 9}) })
	}
	{
		v := p.Uint64s()
		x := must[*Uint64s](t)(d.AllocUint64s(4))
		defer x.Free()
		copy(v, []uint64{1 << 63, 5})
		roundTrip("uint64", func() error { return x.UploadAsync(s, 1, v[:2]) }, func() error { return x.DownloadAsync(s, 1, v[300:302]) },
			func() bool { return slices.Equal(v[300:302], []uint64{1 << 63, 5}) })
	}
	{
		v := p.Uint32s()
		x := must[*Uint32s](t)(d.AllocUint32s(4))
		defer x.Free()
		copy(v, []uint32{1 << 31, 6})
		roundTrip("uint32", func() error { return x.UploadAsync(s, 2, v[:2]) }, func() error { return x.DownloadAsync(s, 2, v[400:402]) },
			func() bool { return slices.Equal(v[400:402], []uint32{1 << 31, 6}) })
	}
	{
		v := p.Uint8s()
		x := must[*Uint8s](t)(d.AllocUint8s(5))
		defer x.Free()
		copy(v, []uint8{250, 1, 2})
		roundTrip("uint8", func() error { return x.UploadAsync(s, 2, v[:3]) }, func() error { return x.DownloadAsync(s, 2, v[4000:4003]) },
			func() bool { return slices.Equal(v[4000:4003], []uint8{250, 1, 2}) })
	}

	// errors: ranges, memory that is not pinned, nil buffers.
	wantErr(t, b.UploadAsync(s, -1, h[:2]), nil, "outside the buffer of 300")
	wantErr(t, b.UploadAsync(s, 299, h[:2]), nil, "[299, 301)", "outside")
	wantErr(t, b.DownloadAsync(s, 301, nil), nil, "outside")
	wantErr(t, b.UploadAsync(s, 0, make([]int32, 4)), nil, "not pinned", "AllocPinned")
	var nilBuf *Int32s
	wantErr(t, nilBuf.UploadAsync(s, 0, h[:1]), nil, "never allocated")
	// a view reaching past the end of the pinned memory (into the padding
	// of its last 8 bytes) is refused.
	past := unsafeExtend(h[998:], 2)
	wantErr(t, b.UploadAsync(s, 0, past), nil, "not pinned")

	if err := p.Free(); err != nil {
		t.Fatal(err)
	}
	if err := p.Free(); err != nil {
		t.Errorf("second Free: %v", err)
	}
	if !strings.HasSuffix(p.String(), "(freed)") {
		t.Errorf("String after Free: %q", p.String())
	}
	wantErr(t, b.UploadAsync(s, 0, h[:2]), nil, "not pinned")
	h[0] = 1 // the view stays valid Go memory
	b.Free()
	q := must[*Pinned](t)(d.AllocPinned(64))
	defer q.Free()
	wantErr(t, b.UploadAsync(s, 0, q.Int32s()[:1]), nil, "freed")

	// sizes
	if _, err := d.AllocPinned(-1); err == nil {
		t.Error("AllocPinned(-1): no error")
	}
	z := must[*Pinned](t)(d.AllocPinned(0))
	if z.Bytes() != 0 || z.Int32s() != nil || z.Free() != nil {
		t.Error("empty Pinned")
	}
	var nilPinned *Pinned
	if nilPinned.Bytes() != 0 || nilPinned.Free() != nil || nilPinned.Int32s() != nil || nilPinned.String() != "Pinned (nil)" {
		t.Error("nil Pinned")
	}
	if _, err := (*Device)(nil).AllocPinned(8); err == nil {
		t.Error("AllocPinned on a nil device: no error")
	}
}

// unsafeExtend returns s with its length grown by k (the memory must
// exist; only its address is used).
func unsafeExtend(s []int32, k int) []int32 { return unsafe.Slice(&s[0], len(s)+k) }

func TestHostAsync(t *testing.T) {
	d := Host()
	checkAsync(t, d, nil)
	p := must[*Pinned](t)(d.AllocPinned(16))
	defer p.Free()
	b := must[*Int32s](t)(d.AllocInt32s(4))
	defer b.Free()
	// a stream of a GPU cannot be passed to the host; a host has none, so
	// a zero Stream stands in for "some stream".
	wantErr(t, b.UploadAsync(&Stream{st: &handleState{}}, 0, p.Int32s()), nil, "no streams")
}

func init() {
	addScenario("async_copies", nil, func(t *testing.T) {
		d := fakeDevice(t)
		s := must[*Stream](t)(d.NewStream())
		defer s.Close()
		checkAsync(t, d, s)
		if !strings.Contains(readLog(t), "cuMemHostRegister_v2 bytes=4003") {
			t.Errorf("AllocPinned did not register its memory:\n%s", grepLog(t, "cuMemHost"))
		}
		// 200 int32 up; 300 int32 down (and then the other sizes).
		if !strings.Contains(readLog(t), "cuMemcpyHtoDAsync_v2 bytes=800") || !strings.Contains(readLog(t), "cuMemcpyDtoHAsync_v2 bytes=1200") {
			t.Errorf("async copies missing from the log:\n%s", grepLog(t, "cuMemcpy"))
		}
		if n := countLog(t, "cuMemHostUnregister"); n != 2 { // p freed explicitly, q by its defer at the end of checkAsync
			t.Errorf("%d unregistrations, want 2", n)
		}
		// a closed stream is refused.
		p := must[*Pinned](t)(d.AllocPinned(64))
		defer p.Free()
		b := must[*Int32s](t)(d.AllocInt32s(16))
		defer b.Free()
		s2 := must[*Stream](t)(d.NewStream())
		s2.Close()
		wantErr(t, b.UploadAsync(s2, 0, p.Int32s()), nil, "stream was closed")
		// registration refused by the driver.
		os.Setenv("FAKE_CUDA_FAIL", "cuMemHostRegister_v2=2")
		_, err := d.AllocPinned(1 << 20)
		os.Unsetenv("FAKE_CUDA_FAIL")
		wantErr(t, err, nil, "cuMemHostRegister_v2(1.0 MiB)", "ulimit -l")
		// a Pinned the program drops is unpinned by its cleanup.
		before := countLog(t, "cuMemHostUnregister")
		func() { _ = must[*Pinned](t)(d.AllocPinned(128)) }()
		for i := 0; i < 50 && countLog(t, "cuMemHostUnregister") == before; i++ {
			runtime.GC()
			_ = d.Synchronize() // lets the device thread run queued releases
		}
		if countLog(t, "cuMemHostUnregister") == before {
			t.Error("a dropped Pinned was not unregistered")
		}
	})
}

// TestGPUAsyncCopies runs the checks on a real GPU, then streams a
// vector through two buffers on a copy stream while a compute stream
// adds to it (the double-buffering pattern the out-of-core APSP uses).
func TestGPUAsyncCopies(t *testing.T) {
	d := requireGPU(t)
	copyS := must[*Stream](t)(d.NewStream())
	defer copyS.Close()
	checkAsync(t, d, copyS)

	compS := must[*Stream](t)(d.NewStream())
	defer compS.Close()
	vadd := must[*Function](t)(testModule(t, d).Function("vadd"))
	const chunk, chunks = 1 << 20, 8
	p := must[*Pinned](t)(d.AllocPinned(4 * chunk * chunks))
	defer p.Free()
	h := p.Float32s()
	for i := range h {
		h[i] = float32(i % 1000)
	}
	var bufs [2]*Float32s
	var loaded, done [2]*Event
	for i := range bufs {
		bufs[i] = must[*Float32s](t)(d.AllocFloat32s(chunk))
		defer bufs[i].Free()
		loaded[i] = must[*Event](t)(d.NewEvent())
		done[i] = must[*Event](t)(d.NewEvent())
	}
	part := func(m int) []float32 { return h[m*chunk : (m+1)*chunk] }
	load := func(m int) {
		t.Helper()
		if err := bufs[m%2].UploadAsync(copyS, 0, part(m)); err != nil {
			t.Fatal(err)
		}
		if err := loaded[m%2].Record(copyS); err != nil {
			t.Fatal(err)
		}
	}
	compute := func(m int) {
		t.Helper()
		if err := loaded[m%2].Synchronize(); err != nil {
			t.Fatal(err)
		}
		x := bufs[m%2]
		if err := vadd.LaunchOn(compS, Blocks(chunk, 256), D1(256), 0, x, x, x, chunk); err != nil {
			t.Fatal(err)
		}
		if err := done[m%2].Record(compS); err != nil {
			t.Fatal(err)
		}
	}
	load(0)
	load(1)
	compute(0)
	for m := 0; m < chunks; m++ {
		if m+1 < chunks {
			compute(m + 1)
		}
		if err := done[m%2].Synchronize(); err != nil {
			t.Fatal(err)
		}
		if err := bufs[m%2].DownloadAsync(copyS, 0, part(m)); err != nil {
			t.Fatal(err)
		}
		if m+2 < chunks {
			load(m + 2)
		}
	}
	if err := copyS.Synchronize(); err != nil {
		t.Fatal(err)
	}
	for i, v := range h {
		if want := float32(2 * (i % 1000)); v != want {
			t.Fatalf("element %d = %v, want %v (chunk %d)", i, v, want, i/chunk)
		}
	}
	t.Logf("streamed %d chunks of %s through 2 buffers", chunks, strconv.Itoa(4*chunk)+" bytes")
}
