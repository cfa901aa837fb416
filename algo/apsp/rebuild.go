package apsp

import (
	"fmt"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/trace"
)

// Predecessors rebuilt from the distances (issue 18).
//
// A product that keeps predecessors does three ALU instructions per
// update where the distances alone need one (an add-min), so a blocked
// run with predecessors took 2.5× the distances-only run on an H100 at
// n = 16384. Where every finite off-diagonal weight is positive, the
// in-core blocked methods instead run the distances-only products and
// then rebuild the predecessors on the device: Parents[i][j] is a tail k
// of an arc k → j with D[i][k] + W[k][j] = D[i][j] (a tight arc; float32:
// the in-arc of least D[i][k] + W[k][j]), found among j's in-arcs, a CSR
// by column that the run builds from the padded matrix after fw_init
// (fw.cu: fw_csr_count, fw_csr_scan, fw_csr_fill, then a rebuild kernel
// after the rounds: fw_rebuild_warp, fw_rebuild_rows or fw_rebuild, see
// rebuildPlanFor). That costs O(n²) for the CSR and O(n·m) for the rebuild
// (m arcs), which pays on sparse matrices (rebuildMaxDensityI32, F32).
//
// Positive weights make the int32 predecessors acyclic: a tight arc's
// tail is strictly nearer to the source, so following Parents reaches it.
// Zero or negative entries (zero-weight cycles: tight arcs may close a
// cycle) keep the product with predecessors and its hop tie-break.
// float32 sums round, so a rebuilt float32 matrix goes through Run's
// cycle check as the product's does (matrixInfo.mayCycle) and its hop
// tie-break fallback, which never rebuilds.

// rebuildMaxDensityI32 and rebuildMaxDensityF32 are the largest arcs ÷
// n² for which Prepare rebuilds the predecessors of an int32 or float32
// matrix rather than keep them in the products: the rebuild costs about
// n·m lookups (int32 stopping at the first tight arc, float32 scanning
// all), the products with predecessors about n³ updates more than
// without, so the crossover is a density. Measured on an H100
// (BenchmarkGPURebuildDensity, n = 8192, tile 64; products with
// predecessors 0.136 s): int32 rebuilt 0.132 s at degree 128 (1/64),
// 0.203 s at 256 (1/32), 0.340 s at 512; float32 0.170 s at 128 and
// 0.258 s at 256; the crossovers lie near 1/60 (int32) and 1/95
// (float32). Those runs had a rebuild kernel 1.6× slower for int32
// than fw.cu's (20.0 against 12.3 ms at n = 16384, degree 8; float32
// about equal), so the int32 crossover now lies nearer 1/40.
var rebuildMaxDensityI32, rebuildMaxDensityF32 = 1.0 / 64, 1.0 / 128

// The rebuild's kernel. fw_rebuild (a thread per entry, grid-stride)
// looks D[i][k] up in the L2 cache: a 32-byte sector per lookup, most of
// its traffic (12.2 ms at n = 16384, int32, degree 8, on an H100: the
// products take 0.44 s). The staged kernels copy r rows of the
// distances into a block's shared memory (4·r·np bytes), so that the
// lookups read shared memory, and read each column's in-arcs once for
// the r rows, so the CSR comes from the L2 cache np/r times rather than
// np times: fw_rebuild_rows with a thread per column (its warp's loads
// of arcs touch the 32 columns' ~8 cache lines, and it runs as long as
// its longest scan), fw_rebuild_warp with a warp per 32 columns reading
// their arcs 32 at a time, a lane per arc (a cache line per load), and
// ballots for the first candidate of each column. Prepare takes
// rebuildAuto's kernel and rows, fewer rows where they do not fit the
// shared memory a block may opt in to (gpu.Info.MaxSharedPerBlockOptin:
// 227 KiB on an H100, so 3 rows at n = 16384 and 1 up to n = 58112),
// and fw_rebuild where not one row fits. All give the same predecessors,
// bit for bit: among each column's in-arcs in tail order the first tight
// one (int32), the least sum and the first among equals (float32).

// rebuildKernel names the rebuild's kernels.
type rebuildKernel int

const (
	rebuildGrid rebuildKernel = iota // fw_rebuild
	rebuildRows                      // fw_rebuild_rows
	rebuildWarp                      // fw_rebuild_warp
)

// rebuildPlan is a rebuild kernel and, for the staged ones, its rows of
// distances per block.
type rebuildPlan struct {
	kernel rebuildKernel
	rows   int
}

// rebuildMaxRows is fw.cu's REBUILD_MAX_ROWS: the most rows a block of a
// staged kernel holds.
const rebuildMaxRows = 4

// rebuildAuto is the plan Prepare asks for (fewer rows where they do not
// fit). Two rows take 128 KiB at n = 16384, so one block of 1024
// threads per SM. On an H100 (BenchmarkGPURebuild, n = 16384, int32,
// degree 8, one call): fw_rebuild_warp with 2 rows 7.15 ms against
// fw_rebuild's 12.26 ms, the whole run 0.449 s against 0.454 s (the
// distances alone 0.440 s). The other staged plans (rows, warp with 1
// or 3 rows) have not run on a GPU for time: the choice among them is
// not measured.
var rebuildAuto = rebuildPlan{rebuildWarp, 2}

// rebuildForce, when its rows are not 0, replaces rebuildAuto (tests and
// BenchmarkGPURebuild).
var rebuildForce rebuildPlan

// rebuildPlanFor is the rebuild's plan for a padded side np and smem
// bytes of shared memory a block may opt in to: want (rebuildAuto, or
// force where its rows are not 0) with its rows capped by what fits and
// by rebuildMaxRows; fw_rebuild (rows 0) where want asks for it or not
// one row fits.
func rebuildPlanFor(np, smem int, force rebuildPlan) rebuildPlan {
	want := rebuildAuto
	if force.rows != 0 {
		want = force
	}
	if want.kernel == rebuildGrid || np <= 0 {
		return rebuildPlan{}
	}
	if rows := max(0, min(want.rows, rebuildMaxRows, smem/(np*entryBytes))); rows > 0 {
		return rebuildPlan{want.kernel, rows}
	}
	return rebuildPlan{}
}

// String is the plan as BenchmarkGPURebuild and the tests name it:
// "grid", "rows2", "warp2".
func (r rebuildPlan) String() string {
	switch r.kernel {
	case rebuildRows:
		return fmt.Sprintf("rows%d", r.rows)
	case rebuildWarp:
		return fmt.Sprintf("warp%d", r.rows)
	}
	return "grid"
}

// rebuildMaxBlock caps a staged kernel's block (threads): tests lower it
// so that each thread or warp takes several columns.
var rebuildMaxBlock = 1024

// staticShared is the shared memory a block may take without opting in
// (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), bytes.
const staticShared = 48 << 10

// planRebuild chooses the rebuild's kernel (rebuildPlanFor) for p.smem
// bytes of opt-in shared memory per block, and sizes the untraced
// build's block (sizeRebuildBlock; the traced build's is sized where it
// is loaded).
func (p *Prepared) planRebuild() error {
	p.rebuildPlan = rebuildPlanFor(p.np, p.smem, rebuildForce)
	return p.sizeRebuildBlock(p.k)
}

// sizeRebuildBlock sets k.rebuildBlock, a staged kernel's block for
// the plan: the size with the most threads per SM for its shared memory
// (gpu.Function.BlockSizeFor, k's function: the traced build's may take
// more registers), at most the padded side in whole warps and
// rebuildMaxBlock; 0 for fw_rebuild. It lets a staged kernel take all of
// p.smem where its rows need more than 48 KiB: the kernel is shared by
// every Prepared of the configuration, so a smaller limit set for one
// could fail another's launches.
func (p *Prepared) sizeRebuildBlock(k *kernels) error {
	k.rebuildBlock = 0
	if p.rebuildPlan.rows == 0 {
		return nil
	}
	f := p.rebuildFunc(k)
	if p.rebuildShared() > staticShared {
		if err := f.SetMaxDynamicShared(p.smem); err != nil {
			return err
		}
	}
	b, err := f.BlockSizeFor(p.rebuildShared())
	if err != nil {
		return err
	}
	k.rebuildBlock = min(b, roundUp(p.np, 32), rebuildMaxBlock)
	return nil
}

// rebuildFunc is the plan's kernel among k's.
func (p *Prepared) rebuildFunc(k *kernels) *gpu.Function {
	switch p.rebuildPlan.kernel {
	case rebuildRows:
		return k.rebuildRows
	case rebuildWarp:
		return k.rebuildWarp
	}
	return k.rebuild
}

// rebuildShared is a staged kernel's dynamic shared memory: its rows of
// distances, bytes.
func (p *Prepared) rebuildShared() int { return p.rebuildPlan.rows * p.np * entryBytes }

// csrGroups is fw.cu's CSR_GROUPS: the row segments of a column that
// fw_csr_count and fw_csr_fill give a thread each.
const csrGroups = 8

// kindRebuild is the trace step of the rebuild (see Options.Trace).
const kindRebuild = "rebuild"

// csrState is the device CSR of the padded matrix by column: the arc
// counts per row segment and column (csrGroups·np), the offsets (np+1),
// the arcs' tails and weights (4-byte words, the matrix's type).
type csrState struct {
	cnt  *gpu.Int32s
	off  *gpu.Int64s
	src  *gpu.Int32s
	w    *gpu.Int32s
	arcs int64
}

// rebuildCandidate reports whether a run of p's options would rebuild
// the predecessors, memory aside: predecessors kept, not forced into the
// products (Options.PredecessorsInProduct), no hop tie-break, a blocked
// method, every finite off-diagonal weight positive, and the matrix
// sparse (rebuildMaxDensityI32, rebuildMaxDensityF32).
func (p *Prepared) rebuildCandidate(hops bool) bool {
	o, n := p.opts, float64(p.info.n)
	limit := rebuildMaxDensityI32
	if p.info.f32 {
		limit = rebuildMaxDensityF32
	}
	return !hops && !o.DistancesOnly && !o.PredecessorsInProduct && o.Method != PlainGPU &&
		p.info.n > 0 && !p.info.nonPos && float64(p.info.arcs) <= limit*n*n
}

// csrBytes is the device memory of the CSR over np columns and m arcs.
func csrBytes(np int, m int64) int64 {
	return int64(csrGroups)*int64(np)*4 + int64(np+1)*8 + 2*max(m, 1)*4
}

// allocCSR allocates the CSR for the padded matrix.
func (p *Prepared) allocCSR() error {
	np, m := p.np, p.info.arcs
	c := &csrState{arcs: m}
	var err error
	if c.cnt, err = p.mem.AllocInt32s(csrGroups * np); err != nil {
		return err
	}
	if c.off, err = p.mem.AllocInt64s(np + 1); err != nil {
		return err
	}
	if c.src, err = p.mem.AllocInt32s(int(max(m, 1))); err != nil {
		return err
	}
	if c.w, err = p.mem.AllocInt32s(int(max(m, 1))); err != nil {
		return err
	}
	p.csr = c
	return nil
}

// buildCSR queues k's three CSR kernels on the padded matrix (after
// fw_init, before the products) on the default stream, logged in log
// (nil: unlogged) as set-up launches, open: the rounds' first launch
// follows them at once.
func (p *Prepared) buildCSR(t *gpu.Thread, k *kernels, log *gpu.LaunchLog) error {
	np, c := p.np, p.csr
	grid, block := gpu.D1((np+31)/32), gpu.D2(32, csrGroups)
	if err := log.LaunchOpen(t, nil, -1, k.csrCount, grid, block, 0, p.dist, np, c.cnt); err != nil {
		return err
	}
	if err := log.LaunchOpen(t, nil, -1, k.csrScan, gpu.D1(1), gpu.D1(1024), 0, c.cnt, np, c.off); err != nil {
		return err
	}
	return log.LaunchOpen(t, nil, -1, k.csrFill, grid, block, 0, p.dist, np, c.cnt, c.off, c.src, c.w)
}

// rebuildPred queues the rebuild over the final distances with k's
// kernel on the default stream, logged in log (nil: unlogged) as step
// step, closed (the run's last launch): a staged kernel, a block per
// group of the plan's rows, or fw_rebuild (grid-stride over the
// entries).
func (p *Prepared) rebuildPred(t *gpu.Thread, k *kernels, log *gpu.LaunchLog, step int) error {
	np, c, rows := p.np, p.csr, p.rebuildPlan.rows
	if rows == 0 {
		return log.LaunchOn(t, nil, step, k.rebuild, elementGrid(int64(np)*int64(np)), gpu.D1(elementBlock), 0, p.dist, np, c.off, c.src, c.w, p.pred)
	}
	grid := gpu.D1(min((np+rows-1)/rows, maxElementGrid))
	return log.LaunchOn(t, nil, step, p.rebuildFunc(k), grid, gpu.D1(k.rebuildBlock), p.rebuildShared(), p.dist, np, c.off, c.src, c.w, p.pred, rows)
}

// rebuildStep is the trace step of the rebuild: it inspects at most every
// in-arc of every column for every row, n·m (the padding has no arcs;
// int32 scans stop at the first tight arc, unreachable entries scan none).
func (p *Prepared) rebuildStep() trace.Step {
	return trace.Step{Kind: kindRebuild, Inspected: int64(p.info.n) * p.info.arcs}
}

// rebuildBytes is the byte model of the rebuild's launches (see
// Options.Trace), by name without the element type's suffix; ok is false
// for other kernels.
func (p *Prepared) rebuildBytes(name string) (bytes, gather int64, ok bool) {
	n, np, m := int64(p.info.n), int64(p.np), p.info.arcs
	counts := int64(csrGroups) * np * entryBytes
	offsets := (np + 1) * 8
	arcs := m * 2 * entryBytes
	switch name {
	case "fw_csr_count":
		// the distance plane read, the counts written.
		return np*np*entryBytes + counts, 0, true
	case "fw_csr_scan":
		// the counts read twice (sums, then offsets), the offsets written.
		return 2*counts + offsets, 0, true
	case "fw_csr_fill":
		// the plane and the counts read, the offsets read, the arcs written.
		return np*np*entryBytes + counts + offsets + arcs, 0, true
	case "fw_rebuild":
		// the distances read and the predecessors written, the offsets and
		// arcs read once (the L2 cache holds them for every row), and at
		// most one lookup D[i][k] per row and arc: a gather.
		gather := n * m * entryBytes
		return 2*np*np*entryBytes + offsets + arcs + gather, gather, true
	case "fw_rebuild_rows", "fw_rebuild_warp":
		// the same without the gather: the lookups read the rows staged
		// in shared memory.
		return 2*np*np*entryBytes + offsets + arcs, 0, true
	}
	return 0, 0, false
}
