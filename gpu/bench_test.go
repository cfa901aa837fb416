package gpu

import (
	"runtime"
	"testing"
	"time"
	"unsafe"
)

// Benchmarks for the GPU machine; without a device they skip. The issue's
// goals, with their C references in ops/gpuref (memcpy.cu, launch.c; run by ops/gpu-test.sh):
//
//	BenchmarkCopy/h2d_1GiB, /d2h_1GiB   ≥ 80% of cudaMemcpy's GB/s
//	BenchmarkLaunchEmpty/exec_loop      ≤ 2× the µs/launch of C calling cuLaunchKernel
//	BenchmarkCompileCached              ≤ 5 ms per cached compile and load

const benchCopyBytes = 1 << 30

func copyBench(b *testing.B, d *Device, h2d bool, mode int) {
	n := benchCopyBytes / 4
	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i)
	}
	buf, err := d.AllocFloat32s(n)
	if err != nil {
		b.Skip(err)
	}
	defer buf.Free()
	if mode >= 0 {
		copyConfig.override.Store(int32(mode + 1))
		defer copyConfig.override.Store(0)
	}
	// one untimed round, so first-touch page faults and lazy set-up are out
	if err := buf.Upload(host); err != nil {
		b.Fatal(err)
	}
	if err := buf.Download(host); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(benchCopyBytes)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if h2d {
			err = buf.Upload(host)
		} else {
			err = buf.Download(host)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchCopyBytes)*float64(b.N)/time.Since(start).Seconds()/1e9, "GB/s")
}

// BenchmarkCopy measures 1 GiB host↔device copies of a Go slice in the
// default copy mode (GRAPHNB_COPY).
func BenchmarkCopy(b *testing.B) {
	d := requireGPU(b)
	b.Run("h2d_1GiB", func(b *testing.B) { copyBench(b, d, true, -1) })
	b.Run("d2h_1GiB", func(b *testing.B) { copyBench(b, d, false, -1) })
}

// BenchmarkCopyModes compares the copy strategies, and a copy from memory
// registered once beforehand (what cudaMemcpy from cudaMallocHost memory
// reaches), so the default can be chosen from one run.
func BenchmarkCopyModes(b *testing.B) {
	d := requireGPU(b)
	for _, m := range []struct {
		name string
		mode int
	}{{"register", copyRegister}, {"pageable", copyPageable}, {"staged", copyStaged}} {
		b.Run(m.name+"/h2d_1GiB", func(b *testing.B) { copyBench(b, d, true, m.mode) })
		b.Run(m.name+"/d2h_1GiB", func(b *testing.B) { copyBench(b, d, false, m.mode) })
	}
	for _, h2d := range []bool{true, false} {
		name := "preregistered/h2d_1GiB"
		if !h2d {
			name = "preregistered/d2h_1GiB"
		}
		b.Run(name, func(b *testing.B) { preregisteredBench(b, d, h2d) })
	}
}

func preregisteredBench(b *testing.B, d *Device, h2d bool) {
	host := make([]byte, benchCopyBytes)
	for i := range host {
		host[i] = byte(i)
	}
	buf, err := d.AllocUint8s(benchCopyBytes)
	if err != nil {
		b.Skip(err)
	}
	defer buf.Free()
	var pin runtime.Pinner
	pin.Pin(&host[0])
	defer pin.Unpin()
	p := unsafe.Pointer(&host[0])
	err = d.Exec(func(t *Thread) error { return t.check("cuMemHostRegister_v2", cuHostRegister(p, benchCopyBytes)) })
	if err != nil {
		b.Skip(err)
	}
	defer d.Exec(func(t *Thread) error { cuHostUnregister(p); return nil })
	b.SetBytes(benchCopyBytes)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		err := d.Exec(func(t *Thread) error {
			if h2d {
				return t.check("cuMemcpyHtoD_v2", cuMemcpyHtoD(buf.Ptr(), p, benchCopyBytes))
			}
			return t.check("cuMemcpyDtoH_v2", cuMemcpyDtoH(p, buf.Ptr(), benchCopyBytes))
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchCopyBytes)*float64(b.N)/time.Since(start).Seconds()/1e9, "GB/s")
}

// BenchmarkLaunchEmpty measures the cost of launching an empty kernel:
// exec_loop queues 10,000 launches inside one Exec and synchronises once
// (an algorithm's launch loop); function_launch calls Function.Launch for
// each (a goroutine hop per launch), then synchronises.
func BenchmarkLaunchEmpty(b *testing.B) {
	d := requireGPU(b)
	empty, err := testModule(b, d).Function("empty")
	if err != nil {
		b.Fatal(err)
	}
	const launches = 10000
	report := func(b *testing.B, start time.Time) {
		b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N*launches), "µs/launch")
	}
	b.Run("exec_loop", func(b *testing.B) {
		start := time.Now()
		for i := 0; i < b.N; i++ {
			err := d.Exec(func(t *Thread) error {
				for k := 0; k < launches; k++ {
					if err := t.Launch(empty, D1(1), D1(32), 0); err != nil {
						return err
					}
				}
				return t.Synchronize()
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		report(b, start)
	})
	b.Run("function_launch", func(b *testing.B) {
		start := time.Now()
		for i := 0; i < b.N; i++ {
			for k := 0; k < launches; k++ {
				if err := empty.Launch(D1(1), D1(32), 0); err != nil {
					b.Fatal(err)
				}
			}
			if err := d.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
		report(b, start)
	})
}

// BenchmarkCompileCached measures Compile of a source already in the
// cache: key hashing, the cache lookup and cuModuleLoadData.
func BenchmarkCompileCached(b *testing.B) {
	d := requireGPU(b)
	b.Setenv("GRAPHNB_CACHE", b.TempDir())
	if _, err := d.Compile("bench_cached", testKernels); err != nil {
		b.Fatal(err)
	}
	for _, from := range []string{"memory", "disk"} {
		b.Run(from, func(b *testing.B) {
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if from == "disk" {
					memCache.Lock()
					memCache.m = nil
					memCache.Unlock()
				}
				m, err := d.Compile("bench_cached", testKernels)
				if err != nil {
					b.Fatal(err)
				}
				if !m.FromCache() {
					b.Fatal("not from the cache")
				}
				m.Close()
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/compile")
		})
	}
}
