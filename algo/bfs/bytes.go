package bfs

import (
	"strings"

	"github.com/graphnb/graphnb/trace"
)

// The byte models of a traced GPU search's launches (Options.Trace,
// trace.Launch.Bytes and Gather): what a launch must move between the GPU
// and its memory by construction, from its access pattern and the step's
// counts. They are lower bounds: useful bytes only (not the whole 32-byte
// sectors that scattered accesses touch), each array element counted once
// where neighbouring threads share it, and writes of data-dependent
// counts (vertices reached) counted once each. Gather is the part read by
// lookups at addresses the data decides, an element at a time.
//
// Element sizes: vertex ids, queue entries, bitmap words and int levels
// 4 bytes, CSR offsets 8 (a vertex's two offsets are adjacent: 16 bytes
// when read alone, 8 a vertex when neighbouring threads read them),
// unsigned char levels 1.

// doLevel is what the model of a direction-optimizing level needs: the
// sizes of the graph and the counts of the level, all from numbers the
// host reads anyway (the control words after each level).
type doLevel struct {
	n, words  int64 // vertices and bitmap words
	frontier  int64 // vertices of the level (the step's Frontier)
	arcs      int64 // their arcs (FrontierArcs)
	unvisited int64 // vertices not reached at the level's start
	read      int64 // arcs a bottom-up step read (Inspected)
	reached   int64 // vertices the level reached (Updated)
	big       int64 // top-down: frontier vertices handed to do_td_big
	bigArcs   int64 // and their arcs
	parents   bool  // the search writes parents
}

// claimBytes is what a vertex claimed by a top-down step moves beyond the
// arc that found it: its bitmap word written back, its level and parent
// written, its offsets read (gathered) for the next frontier's arcs, its
// queue entry written. claimGather is the gathered part.
func (d doLevel) claimBytes() (bytes, gather int64) {
	bytes = 4 + 4 + 16 + 4
	if d.parents {
		bytes += 4
	}
	return bytes, 16
}

// launchBytes models one launch of the level by its kernel's name:
//
//   - do_convert turning bottom-up (kDOQ2BM, queue to bitmap): the queue
//     streamed, 4 bytes a vertex, and its bit set by an atomic OR on a
//     word the vertex decides (read, gathered, and written): 12·frontier,
//     4·frontier gathered.
//   - do_convert turning top-down (kDOBM2Q, bitmap to queue): the bitmap
//     streamed, the other bitmap zeroed and the queue written: 8·words +
//     4·frontier.
//   - do_bu (bottom-up): the visited bitmap streamed (4·words); each
//     unvisited vertex's offsets (8 a vertex); the arcs read, each a
//     4-byte neighbour streamed and a frontier-bitmap word gathered
//     (8·read, 4·read gathered); the next bitmap written whole (4·words);
//     each vertex reached its level (and parent) written.
//   - do_td and do_td_big (top-down, the thread and warp tiers and the
//     grid tier of the vertices with tdBigDeg arcs or more, tdWarpDeg on
//     a small frontier): each frontier
//     vertex's queue entry (do_td reads all, do_td_big its list of big
//     ones) and its two offsets gathered (16 bytes); each arc's neighbour
//     streamed and its visited word gathered (8 bytes, 4 gathered); each
//     vertex claimed (claimBytes). The level's claims are split between
//     the two kernels in proportion to their arcs (the device does not
//     count them apart).
//
// Other kernels (do_init and do_plan, not logged) return 0.
func (d doLevel) launchBytes(kernel string) (bytes, gather int64) {
	cb, cg := d.claimBytes()
	claimsBig := int64(0)
	if d.arcs > 0 {
		claimsBig = int64(float64(d.reached) * float64(d.bigArcs) / float64(d.arcs))
	}
	switch kernel {
	case kDOQ2BM:
		return 12 * d.frontier, 4 * d.frontier
	case kDOBM2Q:
		return 8*d.words + 4*d.frontier, 0
	case kDOBU:
		written := int64(4)
		if d.parents {
			written += 4
		}
		return 8*d.words + 8*d.unvisited + 8*d.read + written*d.reached, 4 * d.read
	case kDOTD:
		small := d.arcs - d.bigArcs
		claims := d.reached - claimsBig
		return 4*d.frontier + 16*d.frontier + 8*small + cb*claims, 16*d.frontier + 4*small + cg*claims
	case kDOTDBig:
		return 4*d.big + 16*d.big + 8*d.bigArcs + cb*claimsBig, 16*d.big + 4*d.bigArcs + cg*claimsBig
	}
	return 0, 0
}

// scanLaunchBytes models a launch of a traced EdgeScan or
// DynamicParallelism search by its kernel's name, with n vertices, m
// edges (the COO view: each edge once) and steps the search's levels
// (l.Step indexes them; -1 is the set-up):
//
//   - bfs_init_u8: every level written, n bytes.
//   - bfs_scan_* (an edge scan): both endpoints of every edge streamed
//     (8·m) and both their levels gathered (2·m·L, L = 1 byte for
//     unsigned char levels, 4 for int); each vertex the level reached
//     written once (L each).
//   - bfs_count_*: the levels streamed, n·L.
//   - bfs_widen: n unsigned char levels read and n int levels written, 5·n.
//   - dp_parent_* (child grids, the children's work in the parent's time):
//     the levels streamed (n·L); each frontier vertex's offsets gathered
//     (16 bytes); each of the frontier's arcs its neighbour streamed and
//     the neighbour's level gathered (4 + L); each vertex reached written.
func scanLaunchBytes(l trace.Launch, n, m int64, steps []trace.Step) (bytes, gather int64) {
	lv := int64(1)
	if strings.HasSuffix(l.Name, "_i32") || strings.HasSuffix(l.Name, "_i32_ro") {
		lv = 4
	}
	var s trace.Step
	if l.Step >= 0 && l.Step < len(steps) {
		s = steps[l.Step]
	}
	switch {
	case l.Name == kInit8:
		return n, 0
	case l.Name == kWiden:
		return 5 * n, 0
	case strings.HasPrefix(l.Name, "bfs_scan_"):
		return 8*m + 2*m*lv + lv*s.Updated, 2 * m * lv
	case strings.HasPrefix(l.Name, "bfs_count_"):
		return n * lv, 0
	case strings.HasPrefix(l.Name, "dp_parent_"):
		return n*lv + 16*s.Frontier + (4+lv)*s.FrontierArcs + lv*s.Updated, 16*s.Frontier + lv*s.FrontierArcs
	}
	return 0, 0
}
