// Package devcheck holds what the device checks of the algorithm packages
// (bfs, sssp, mst, apsp, densebf: each package's check.cu and devcheck.go)
// share: the CUDA helpers of check.cuh, compiled before each package's
// check.cu (after devcsr's csr.cuh), and on the Go side the control word that holds the failure
// key and the key's layout (the kernels are looked up with
// gpu.ModuleCache.Functions).
//
// A check's kernels record a failure as one key, rule<<48 | index, kept
// at its minimum in the control word ErrWord (ck_fail in check.cuh): the
// lowest rule wins, then the lowest index, so the failure reported does
// not depend on scheduling. The host resets the word to None before the
// kernels run and words the failure itself (each package its own rules).
package devcheck

import (
	_ "embed"

	"github.com/graphnb/graphnb/algo/internal/devcsr"
)

//go:embed check.cuh
var helpers string

// Source returns the text a package compiles for its device check:
// devcsr's csr.cuh (an arc's row), the shared helpers of check.cuh, then
// body (the package's check.cu). NVRTC takes no #include, so the text is
// joined here; the fake GPU's testdata/fake_check.cpp includes csr.cuh and
// check.cuh before check.cu instead.
func Source(body string) string { return devcsr.Prepend(helpers + "\n" + body) }

const (
	// ErrWord is the index of the control word that holds the smallest
	// failure key (check.cuh's CK_ERR).
	ErrWord = 0
	// None is the failure key of a check that found nothing (the
	// control word's value before the kernels run).
	None = ^uint64(0)
)

// Rule returns the rule of failure key (not None): its top 16 bits.
func Rule(key uint64) uint64 { return key >> 48 }

// Index returns the index (a vertex, arc, edge or entry, as the rule
// says) of failure key (not None): its low 48 bits.
func Index(key uint64) uint64 { return key & (1<<48 - 1) }

// Initial returns the control words a check starts from: ErrWord None,
// the other words (words in all) 0.
func Initial(words int) []uint64 {
	ctl := make([]uint64, words)
	ctl[ErrWord] = None
	return ctl
}

// Checker names the checker a package's Checker method reports: "cpu"
// when the check runs on the host (the package's CPU check), "device"
// otherwise.
func Checker(onHost bool) string {
	if onHost {
		return "cpu"
	}
	return "device"
}
