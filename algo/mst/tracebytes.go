package mst

import (
	"strings"

	"github.com/graphnb/graphnb/trace"
)

// roundWork is what a traced round did that its launches' byte models
// need beyond its trace.Step: the arcs read and the candidates found by
// the probe and by the warp scan (the kernels count them in traced
// runs, in the counter words the host reads after every round anyway),
// the vertices the probe handed to the scan (the long list's length,
// counted in every run) and the candidates the host's share found.
type roundWork struct {
	probeArcs, probeCands int64
	scanArcs, scanCands   int64
	long                  int64
	hostCands             int64
}

// modelBytes sets every launch's byte model (trace.Launch.Bytes and
// Gather) from launchBytes; work[i] is step i's round.
func (p *Prepared) modelBytes(launches []trace.Launch, steps []trace.Step, work []roundWork) {
	for i, l := range launches {
		var s trace.Step
		var w roundWork
		if l.Step >= 0 && l.Step < len(steps) && l.Step < len(work) {
			s, w = steps[l.Step], work[l.Step]
		}
		launches[i].Bytes, launches[i].Gather = p.launchBytes(l.Name, s, w)
	}
}

// launchBytes is the byte model of one launch of kernel name in the
// round of step s, whose find-minimum step did w (zero for mst_init, the
// set-up): the bytes the launch must move by construction, lower bounds
// of its useful reads and writes, and the part of them read by random
// lookups (gather). 0, 0 for a kernel without a model.
//
// The sizes: n vertices, the first ng the device's (their lists on the
// device; h = n − ng are the host's, Hybrid or MemoryCap), P trees at the
// round's start (s.Frontier), U trees merged into others (s.Updated, the
// edges added), C candidates found in all (w's probe, scan and host
// counts), A arcs read by a kernel, L long vertices. Per arc a neighbour
// id is 4 bytes, or 1.25 compressed (a low byte and two bits; Compress);
// a weight key wb bytes (4 for ranks and float32, 8 for float64, 0
// unweighted); split keys (float64 weights) add a 4-byte edge index to
// the candidates and the trees' best. A label, low index, parent, new id
// or list entry is 4 bytes, an offset or key 8.
//
//   - mst_init writes every label (4n), the device's low indices (4ng) and
//     with a host share the labels the host reads (4·(n − compLo)):
//     streamed.
//   - mst_reset writes each tree's key (8, and 4 split) and parent (4):
//     streamed.
//   - mst_probe_* reads each device vertex's label, low index and offset
//     and writes its candidate key (24·ng + 8), streamed, and the base of
//     its compressed ids if it has a candidate or goes to the scan
//     (4·(C + L)), appends the long vertices (4·L), and writes each
//     candidate's neighbour tree (4, and 4 split); it gathers, per arc
//     read, the id and the neighbour's label (each thread reads its own
//     list at its own low index) and per candidate its weight key and
//     edge index.
//   - mst_scan_* reads the list's length (4) and entries (4·L), streamed,
//     and gathers each long vertex's label, offsets and low index (24,
//     and its base compressed), whose low index and candidate key it
//     writes (12); per arc it streams the id (a warp reads 32 in a row)
//     and gathers the neighbour's label; per candidate it gathers the
//     weight key and edge index and writes the neighbour tree (4, and 4
//     split).
//   - mst_merge_host streams the host's candidate keys and their labels
//     (12·h).
//   - mst_min_edge (split keys) streams every candidate key (8n) and per
//     candidate its tree, edge and label (12), and gathers its tree's
//     best key (8).
//   - mst_hook streams every candidate key (8n) and per candidate its
//     neighbour tree, label (and edge, split), gathers its tree's best
//     key (8), and per merged tree writes the parent (4) (split: gathers
//     the tree's best edge, 4).
//   - mst_cycles streams the parents (4P).
//   - mst_jump streams the parents (4P) and per merged tree its key (8, or
//     its edge 4 split), and gathers the forest bitmap's word it sets (4)
//     and at least one parent on the way to the root (4).
//   - mst_renumber streams the parents (4P) and writes the new id of each
//     remaining tree (4·(P − U)).
//   - mst_relabel reads and writes every label (8n), streamed, gathers its
//     tree's parent and the parent's new id (8n), and with a host share
//     writes the host's labels (4·(n − compLo)).
//
// Left out, as data-dependent or too small to matter: the atomicMin on
// the trees' best keys (how many the filter and the warp's reduction skip
// depends on timing), the low indices the probe writes back (only where
// they moved) and the compressed bases of vertices whose probe ran out
// of arcs without a candidate, the reads of hooked trees' parents in mst_cycles and the
// steps of pointer jumping beyond the first, the trees hooked into a
// 2-cycle beyond U (the hook writes, and split the best edges read, are
// counted for U trees though all hooked trees make them), and the
// counter words (the scan's read of the list length aside). The host's
// share of the find-minimum step moves nothing on the device but its
// candidates (mst_merge_host; the host↔device copies are no launch).
func (p *Prepared) launchBytes(name string, s trace.Step, w roundWork) (bytes, gather int64) {
	n, ng := int64(p.n), int64(p.hostFrom)
	h := n - ng
	P, U := s.Frontier, s.Updated
	C := w.probeCands + w.scanCands + w.hostCands
	wb := p.weightBytes()
	var sp int64 // the split keys' edge index, per candidate or tree
	if p.split() {
		sp = 4
	}
	var tail int64 // the labels the host reads, mirrored by init and relabel
	if h > 0 {
		tail = 4 * (n - int64(p.compLo))
	}
	switch {
	case name == "mst_init":
		return 4*n + 4*ng + tail, 0
	case name == "mst_reset":
		return (12 + sp) * P, 0
	case strings.HasPrefix(name, "mst_probe_"):
		gather = p.idBytes(w.probeArcs) + 4*w.probeArcs + (wb+4)*w.probeCands
		bytes = 24*ng + 8 + 4*w.long + (4+sp)*w.probeCands
		if p.compressed {
			bytes += 4 * (w.probeCands + w.long)
		}
		return bytes + gather, gather
	case strings.HasPrefix(name, "mst_scan_"):
		perLong := int64(24)
		if p.compressed {
			perLong += 4
		}
		gather = perLong*w.long + 4*w.scanArcs + (wb+4)*w.scanCands
		bytes = 4 + 16*w.long + p.idBytes(w.scanArcs) + (4+sp)*w.scanCands
		return bytes + gather, gather
	case name == "mst_merge_host":
		return 12 * h, 0
	case name == "mst_min_edge":
		return 8*n + 20*C, 8 * C
	case name == "mst_hook":
		gather = 8*C + sp*U
		return 8*n + (8+sp)*C + 4*U + gather, gather
	case name == "mst_cycles":
		return 4 * P, 0
	case name == "mst_jump":
		return 4*P + (8-sp)*U + 8*U, 8 * U
	case name == "mst_renumber":
		return 4*P + 4*(P-U), 0
	case name == "mst_relabel":
		return 16*n + tail, 8 * n
	}
	return 0, 0
}

// idBytes is the device bytes of the neighbour ids of a arcs: 4 each, or
// 1.25 compressed (a low byte and two bits of a shared byte).
func (p *Prepared) idBytes(a int64) int64 {
	if p.compressed {
		return a + a/4
	}
	return 4 * a
}
