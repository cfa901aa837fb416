package gpu

import (
	"strings"
	"sync"
	"testing"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

func TestHostAllocations(t *testing.T) { checkAllocations(t, Host()) }

// checkAllocations records one resource of every kind on d (streams and
// events where d has them) and checks Bytes, Free and what follows.
func checkAllocations(t *testing.T, d *Device) {
	t.Helper()
	used := d.MemoryUsed()
	a := NewAllocations(d)
	if a.Device() != d || a.Bytes() != 0 {
		t.Fatalf("new set: device %v, %d bytes", a.Device(), a.Bytes())
	}
	g := must[*graph.CSR](t)(gen.RMAT(6, 4, gen.Seed(1)))
	coo := must[*graph.COO](t)(g.UndirectedCOO())
	var freed []func() error // a use of each resource, failing once it is freed
	var want int64
	add := func(bytes int64, use func() error) { want += bytes; freed = append(freed, use) }
	i32 := must[*Int32s](t)(a.AllocInt32s(10))
	add(i32.Bytes(), func() error { return i32.Fill(1) })
	u8 := must[*Uint8s](t)(a.Uint8sFrom([]uint8{1, 2, 3}))
	add(u8.Bytes(), func() error { return u8.Fill(1) })
	f64 := must[*Float64s](t)(a.Float64sFrom([]float64{1, 2}))
	add(f64.Bytes(), func() error { return f64.Fill(1) })
	u64 := must[*Uint64s](t)(a.AllocUint64s(0))
	add(u64.Bytes(), func() error { return u64.Fill(1) })
	dg := must[*Graph](t)(a.Upload(g))
	add(dg.Bytes(), func() error { _, err := dg.Download(); return err })
	dc := must[*COO](t)(a.UploadCOO(coo))
	add(dc.Bytes(), func() error { _, err := dc.Download(); return err })
	pin := must[*Pinned](t)(a.AllocPinned(64)) // host memory: not counted
	if !d.IsHost() {
		s := must[*Stream](t)(a.NewStream())
		freed = append(freed, s.Synchronize)
		e := must[*Event](t)(a.NewEvent())
		freed = append(freed, func() error { return e.Record(nil) })
		freed = append(freed, func() error { return u8.UploadAsync(nil, 0, pin.Uint8s()[:3]) })
	}
	sub := a.Sub()
	f32 := must[*Float32s](t)(sub.AllocFloat32s(5))
	add(f32.Bytes(), func() error { return f32.Fill(1) })
	if want == 0 || a.Bytes() != want || d.MemoryUsed() != used+want {
		t.Errorf("Bytes %d, MemoryUsed %d more; want %d", a.Bytes(), d.MemoryUsed()-used, want)
	}
	if !strings.Contains(a.String(), "allocations on "+d.String()+": ") {
		t.Errorf("String %q", a)
	}

	// A subset freed on its own leaves the rest.
	if err := sub.Free(); err != nil {
		t.Fatal(err)
	}
	want -= f32.Bytes()
	if a.Bytes() != want || sub.Bytes() != 0 {
		t.Errorf("after the subset's Free: Bytes %d (want %d), the subset's %d", a.Bytes(), want, sub.Bytes())
	}
	wantErr(t, f32.Fill(1), nil, "freed")
	if err := i32.Fill(2); err != nil {
		t.Fatal(err)
	}

	// A buffer freed directly is freed again by the set, harmlessly.
	if err := i32.Free(); err != nil {
		t.Fatal(err)
	}
	if err := a.Free(); err != nil {
		t.Fatal(err)
	}
	if a.Bytes() != 0 || d.MemoryUsed() != used {
		t.Errorf("after Free: Bytes %d, MemoryUsed %d more", a.Bytes(), d.MemoryUsed()-used)
	}
	for i, use := range freed {
		if use() == nil {
			t.Errorf("resource %d still usable after Free", i)
		}
	}
	if err := a.Free(); err != nil {
		t.Errorf("second Free: %v", err)
	}
	_, err := a.AllocInt32s(1)
	wantErr(t, err, nil, "Allocations.AllocInt32s: the set was freed")
	_, err = a.Upload(g)
	wantErr(t, err, nil, "Allocations.Upload: the set was freed")
	_, err = a.Sub().AllocInt32s(1)
	wantErr(t, err, nil, "the set was freed")
	if !strings.Contains(a.String(), "(freed)") {
		t.Errorf("String %q", a)
	}

	// A failed allocation records nothing.
	b := NewAllocations(d)
	_, err = b.AllocInt32s(-1)
	wantErr(t, err, nil, "negative length")
	if b.Bytes() != 0 || b.Free() != nil {
		t.Error("a failed allocation was recorded")
	}
}

func TestAllocationsNil(t *testing.T) {
	var a *Allocations
	if a.Bytes() != 0 || a.Free() != nil || a.Device() != nil || a.String() != "allocations (nil)" {
		t.Error("nil set")
	}
	_, err := a.AllocInt32s(1)
	wantErr(t, err, nil, "nil set")
	_, err = NewAllocations(nil).Float32sFrom([]float32{1})
	wantErr(t, err, nil, "nil device")
}

// TestAllocationsConcurrent allocates from several goroutines while Bytes
// is read and the set is freed: every buffer handed out is counted, then
// freed; those made after Free fail and are freed at once.
func TestAllocationsConcurrent(t *testing.T) {
	d := Host()
	used := d.MemoryUsed()
	a := NewAllocations(d)
	const workers, each = 4, 50
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		bufs []*Int32s
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if w == 0 && i == each/2 {
					if err := a.Free(); err != nil {
						t.Error(err)
					}
				}
				b, err := a.AllocInt32s(i + 1)
				if err != nil {
					if !strings.Contains(err.Error(), "the set was freed") {
						t.Error(err)
					}
					continue
				}
				_ = a.Bytes()
				mu.Lock()
				bufs = append(bufs, b)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := a.Free(); err != nil {
		t.Fatal(err)
	}
	if len(bufs) < each/2 {
		t.Errorf("only %d buffers allocated", len(bufs))
	}
	for _, b := range bufs {
		if b.Fill(1) == nil {
			t.Fatalf("%v not freed", b)
		}
	}
	if d.MemoryUsed() != used {
		t.Errorf("MemoryUsed %d more after Free", d.MemoryUsed()-used)
	}
}

// Own records a resource made elsewhere: counted by Bytes, released by
// Free once; a freed set releases it at once and says so.
func TestAllocationsOwn(t *testing.T) {
	a := NewAllocations(Host())
	freed := 0
	if err := a.Own(100, func() error { freed++; return nil }); err != nil {
		t.Fatal(err)
	}
	if a.Bytes() != 100 {
		t.Errorf("Bytes = %d, want 100", a.Bytes())
	}
	if err := a.Free(); err != nil || freed != 1 {
		t.Fatalf("Free: %v, released %d times, want once", err, freed)
	}
	if err := a.Own(1, func() error { freed++; return nil }); err == nil || freed != 2 {
		t.Errorf("Own on a freed set: %v, released %d times; want an error and the resource released", err, freed)
	}
}
