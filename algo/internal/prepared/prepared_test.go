package prepared

import (
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
)

type thing struct {
	Base
	extra int
}

func TestLifecycle(t *testing.T) {
	dev := gpu.Host()
	p := &thing{}
	mem := Init(&p.Base, "algo", "the variant", dev)
	start := time.Now().Add(-time.Second)
	if _, err := mem.AllocInt32s(4); err != nil {
		t.Fatal(err)
	}
	fb := &thing{}
	sub := InitSub(&fb.Base, &p.Base)
	if _, err := sub.AllocFloat64s(2); err != nil {
		t.Fatal(err)
	}
	Done(&p.Base, start)
	if p.Label() != "the variant" || p.Device() != dev || fb.Label() != "the variant" || fb.Device() != dev {
		t.Errorf("label %q device %v; the nested one: %q %v", p.Label(), p.Device(), fb.Label(), fb.Device())
	}
	if p.PrepTime() < time.Second || fb.PrepTime() != 0 {
		t.Errorf("PrepTime %v, nested %v", p.PrepTime(), fb.PrepTime())
	}
	if p.Bytes() != 16+16 || fb.Bytes() != 16 {
		t.Errorf("Bytes %d (want 32), nested %d (want 16)", p.Bytes(), fb.Bytes())
	}
	if err := Open(&p.Base); err != nil {
		t.Fatal(err)
	}

	// Close waits for a Run holding the lock.
	Lock(&p.Base)
	closed := make(chan error)
	go func() { closed <- p.Close() }()
	select {
	case <-closed:
		t.Fatal("Close did not wait for the Run")
	case <-time.After(20 * time.Millisecond):
	}
	Unlock(&p.Base)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if p.Bytes() != 0 || fb.Bytes() != 0 {
		t.Errorf("after Close: Bytes %d, nested %d", p.Bytes(), fb.Bytes())
	}
	err := Open(&p.Base)
	if err == nil || err.Error() != "algo: Run on a closed Prepared (the variant); call Prepare again" {
		t.Errorf("Open after Close: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := mem.AllocInt32s(1); err == nil || !strings.Contains(err.Error(), "freed") {
		t.Errorf("allocation after Close: %v", err)
	}
	var nilBase *Base
	if nilBase.Close() != nil {
		t.Error("nil Base")
	}
	SetPrepTime(&p.Base, time.Hour)
	if p.PrepTime() != time.Hour {
		t.Errorf("SetPrepTime: %v", p.PrepTime())
	}
}
