package fakegpu

import (
	_ "embed"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/gpu/nccl"
)

//go:embed testdata/group_kernels.cu
var groupKernels string

// TestFakeGPUGroup checks RunN and Group: two fake devices joined by the
// fake NCCL all-reduce a buffer, and launch kernels at the same time.
func TestFakeGPUGroup(t *testing.T) {
	RunN(t, "TestFakeGPUGroupChild", time.Minute, 2, func(b *Builder) []string {
		return []string{b.CXX("testdata/group_kernels.cpp", "-Itestdata")}
	})
}

func TestFakeGPUGroupChild(t *testing.T) {
	g := Group(t)
	if g.Size() != 2 || len(g.Ranks()) != 2 {
		t.Fatalf("Group is a %s", g)
	}
	err := g.Run(func(r *gpu.Rank, th *gpu.Thread) error {
		buf, err := r.Device().Int64sFrom([]int64{int64(r.Rank()) + 1, 10})
		if err != nil {
			return err
		}
		defer buf.Free()
		s, err := gpu.SpanOf(buf, 0, -1)
		if err != nil {
			return err
		}
		if err := r.AllReduce(th, s, s, nccl.Sum); err != nil {
			return err
		}
		got, err := buf.ToHost()
		if err != nil {
			return err
		}
		if got[0] != 3 || got[1] != 20 {
			t.Errorf("rank %d: AllReduce gave %v, want [3 20]", r.Rank(), got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Both ranks launch at once, many times: the emulator runs one
	// launch at a time, each seeing only its own buffers.
	err = g.Run(func(r *gpu.Rank, th *gpu.Thread) error {
		m, err := r.Device().Compile("fgroup", groupKernels)
		if err != nil {
			return err
		}
		f, err := m.Function("fgroup_affine")
		if err != nil {
			return err
		}
		const n = 300
		in, err := r.Device().Int64sFrom(make([]int64, n))
		if err != nil {
			return err
		}
		out, err := r.Device().AllocInt64s(n)
		if err != nil {
			return err
		}
		k := int64(r.Rank() + 2)
		for i := 0; i < 50; i++ {
			if err := th.Launch(f, gpu.D1((n+127)/128), gpu.D1(128), 0, in, out, n, k); err != nil {
				return fmt.Errorf("rank %d, launch %d: %w", r.Rank(), i, err)
			}
			in, out = out, in
		}
		got, err := in.ToHost()
		if err != nil {
			return err
		}
		want := int64(0)
		for i := 0; i < 50; i++ {
			want = want*k + 1
		}
		for i, v := range got {
			if v != want {
				return fmt.Errorf("rank %d: element %d is %d, want %d", r.Rank(), i, v, want)
			}
		}
		// A kernel that no linked package claims fails its launch: a
		// test cannot pass without running its kernels.
		u, err := r.Device().Compile("unclaimed", `extern "C" __global__ void unclaimed_noop(long long *p) {}`)
		if err != nil {
			return err
		}
		uf, err := u.Function("unclaimed_noop")
		if err != nil {
			return err
		}
		err = th.Launch(uf, gpu.D1(1), gpu.D1(32), 0, out)
		if err == nil || !strings.Contains(err.Error(), "CUDA_ERROR_NOT_FOUND") {
			return fmt.Errorf("rank %d: the launch of a kernel no package claims returned %v, want CUDA_ERROR_NOT_FOUND", r.Rank(), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFakeGPURanks checks RunRanks and JoinedGroup: a group of two
// processes, one fake GPU each, all-reduces a buffer.
func TestFakeGPURanks(t *testing.T) {
	RunN(t, "TestFakeGPURanksChild", time.Minute, 2, func(b *Builder) []string { return nil })
}

func TestFakeGPURanksChild(t *testing.T) {
	RunRanks(t, "TestFakeGPURank", 2, 45*time.Second)
}

func TestFakeGPURank(t *testing.T) {
	g := JoinedGroup(t)
	if g.Size() != 2 || len(g.Ranks()) != 1 {
		t.Fatalf("JoinedGroup is a %s", g)
	}
	err := g.Run(func(r *gpu.Rank, th *gpu.Thread) error {
		if r.Device().Ordinal() != r.Rank() {
			return fmt.Errorf("rank %d on device %d", r.Rank(), r.Device().Ordinal())
		}
		got, err := r.AllReduceInt64(th, []int64{int64(r.Rank()) + 1}, nccl.Sum)
		if err == nil && got[0] != 3 {
			err = fmt.Errorf("rank %d: AllReduceInt64 gave %v, want [3]", r.Rank(), got)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
