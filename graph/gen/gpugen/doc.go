// Package gpugen generates the studies' graphs on a GPU, straight into
// device-resident CSR graphs (*gpu.Graph), identical edge for edge and bit
// for bit to what package gen makes on the host for the same parameters
// and seed, so that CPU and GPU curves of one notebook run on the same
// graphs and a sweep does not wait for the host to generate and upload.
//
// RMAT is gen.RMAT on the device: the same random streams (gen.PlanRMAT
// gives the alias tables, the streams' starting states and the vertex
// permutation), then package transform's LSD radix sort of the arcs
// (the weights travelling with them) and a compaction that
// removes self-loops and keeps the least weight of duplicate arcs, as
// graph.Build does. The host copy of the result is made only when
// something asks for it (gpu.Graph.Host). On the host device RMAT is
// gen.RMAT followed by an upload, so callers need no branch.
//
// SSCA2 is gen.SSCA2 on the device in the same way (gen.PlanSSCA2): one
// thread per chunk of vertices counts, then writes, its edges; the
// weights, the sort and the CSR follow as for RMAT.
//
// RMATParts makes RMAT's graph partitioned over a device group
// (gpu.Group) by vertex blocks, as a gpu.PartGraph whose parts are RMAT's
// rows, bit for bit, with no host or device ever holding the whole graph:
// each rank draws a share of the plan's chunks, sorts its arcs, sends
// each rank the arcs of its block (Rank.AllToAllV), then sorts what it
// received and builds its part as RMAT builds its CSR. RMATPartsTimed
// also returns each rank's phase times (PartPhases).
//
// The kernels (gen.cu) are compiled by NVRTC on first use; their memory
// need is checked against the device's free memory before anything is
// generated, and an interrupt stops a generation between launches.
package gpugen
