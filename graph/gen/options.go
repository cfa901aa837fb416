package gen

import (
	"fmt"
	"math"
)

// Option adjusts a generator. Options that do not apply to a generator
// are ignored by it. Options are applied in order; a later one overrides
// an earlier one that sets the same thing.
type Option func(*config)

// WeightKind selects the weights a generator attaches to its edges.
type WeightKind int

const (
	// UniformWeights are weights uniform in [0, 1), with 24 random bits as
	// float32 or 53 as float64 (the default of every generator but SSCA2).
	UniformWeights WeightKind = iota
	// IntWeights are whole numbers uniform in 1..max (the default of
	// SSCA2). float32 holds every whole number up to 2^24 exactly; use
	// Float64 for a larger max.
	IntWeights
	// NoWeights makes an unweighted graph.
	NoWeights
)

// String names the weight kind.
func (k WeightKind) String() string {
	switch k {
	case UniformWeights:
		return "uniform [0,1)"
	case IntWeights:
		return "integer"
	case NoWeights:
		return "unweighted"
	}
	return fmt.Sprintf("WeightKind(%d)", int(k))
}

type config struct {
	seed    uint64
	a, b, c float64
	noise   float64

	permute    bool
	permuteSet bool

	weights    WeightKind
	weightsSet bool
	maxWeight  int
	float64W   bool

	ssca2    SSCA2Config
	ssca2Set bool
}

func apply(opts []Option) config {
	c := config{seed: 1, a: 0.57, b: 0.19, c: 0.19, weights: UniformWeights, maxWeight: 255}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// checkWeights validates the weight options common to all generators.
func (c *config) checkWeights(gen string) error {
	if c.weights == IntWeights && c.maxWeight < 1 {
		return fmt.Errorf("gen: %s: Integer(%d) needs a maximum weight of at least 1", gen, c.maxWeight)
	}
	if c.weights < UniformWeights || c.weights > NoWeights {
		return fmt.Errorf("gen: %s: unknown weight kind %d", gen, int(c.weights))
	}
	return nil
}

// checkProbabilities validates R-MAT's a, b, c and the noise level.
func (c *config) checkProbabilities() error {
	a, b, cc := c.a, c.b, c.c
	for _, p := range [...]struct {
		name string
		v    float64
	}{{"a", a}, {"b", b}, {"c", cc}} {
		if !(p.v >= 0 && p.v <= 1) { // also rejects NaN
			return fmt.Errorf("gen: R-MAT probability %s = %v must lie in [0, 1]", p.name, p.v)
		}
	}
	if a+b+cc > 1+1e-12 {
		return fmt.Errorf("gen: R-MAT probabilities a+b+c = %v exceed 1 (d = 1-a-b-c must be ≥ 0)", a+b+cc)
	}
	d := max(0, 1-a-b-cc)
	if !(c.noise >= 0) || math.IsInf(c.noise, 0) {
		return fmt.Errorf("gen: R-MAT noise %v must be a number ≥ 0", c.noise)
	}
	if limit := min(b, cc, (a+d)/2); c.noise > limit {
		return fmt.Errorf("gen: R-MAT noise %v is above min(b, c, (a+d)/2) = %v, which keeps every level's probabilities in [0, 1]", c.noise, limit)
	}
	return nil
}

// Seed sets the random seed (default 1). The same seed and parameters give
// the same graph on any machine and core count; different seeds give
// independent graphs.
func Seed(s uint64) Option { return func(c *config) { c.seed = s } }

// Probabilities sets R-MAT's quadrant probabilities a, b, c; d = 1-a-b-c.
// The default is Graph500's 0.57, 0.19, 0.19 (d = 0.05). Each must lie in
// [0, 1] and a+b+c must not exceed 1, else the generator returns an error.
// Only R-MAT uses them.
func Probabilities(a, b, c float64) Option {
	return func(cf *config) { cf.a, cf.b, cf.c = a, b, c }
}

// Noise perturbs R-MAT's probabilities independently at every level of
// the recursion, as in the "noisy stochastic Kronecker graph" of
// Seshadhri, Pinar and Kolda ("An in-depth analysis of stochastic
// Kronecker graphs", J. ACM 60(2), 2013; arXiv:1102.5046): level ℓ draws
// μ_ℓ uniform in [-level, +level] from the seed and uses
//
//	a_ℓ = a - 2μ_ℓ·a/(a+d),  b_ℓ = b + μ_ℓ,  c_ℓ = c + μ_ℓ,  d_ℓ = d - 2μ_ℓ·d/(a+d).
//
// Noise smooths the oscillating degree distribution of plain R-MAT. The
// default is 0 (off); level must lie in [0, min(b, c, (a+d)/2)], else the
// generator returns an error. (Graph500's reference code has a compile-time
// switch, off by default, for a perturbation of this form whose μ_ℓ runs
// linearly from -level to +level across the levels instead of being
// random.) Only R-MAT uses it.
func Noise(level float64) Option { return func(c *config) { c.noise = level } }

// PermuteVertices relabels vertices with a random permutation drawn from
// the seed, applied to the edge endpoints before the graph is built, as
// the Graph500 generator does, so vertex ids carry no locality. The
// permutation is a keyed Feistel network on the ids (four rounds of
// SplitMix64's finaliser, keys from the seed) restricted to [0, n) by
// cycle walking: each id's image is computed on its own, in parallel here
// and on a GPU (package gpugen), with the same result. (Until issue 15 it
// was a sequential Fisher–Yates shuffle, so permuted graphs of a given
// seed differ from those of earlier versions.) R-MAT
// leaves it off by default (vertex 0 is then the highest-degree vertex);
// SSCA2 has it on by default, as the SSCA#2 specification shuffles its
// vertices (off, each clique is a run of consecutive ids). The teaching
// graphs ignore it.
func PermuteVertices(on bool) Option {
	return func(c *config) { c.permute, c.permuteSet = on, true }
}

// Uniform gives weights uniform in [0, 1): the default of every generator
// but SSCA2.
func Uniform() Option {
	return func(c *config) { c.weights, c.weightsSet = UniformWeights, true }
}

// Integer gives whole-number weights uniform in 1..max (max ≥ 1, else the
// generator returns an error). Stored as float32, whole numbers are exact
// up to 2^24; add Float64 for a larger max.
func Integer(max int) Option {
	return func(c *config) { c.weights, c.maxWeight, c.weightsSet = IntWeights, max, true }
}

// Unweighted makes a graph without weights.
func Unweighted() Option {
	return func(c *config) { c.weights, c.weightsSet = NoWeights, true }
}

// Float64 stores the weights as float64 (CSR.Weights64) instead of
// float32; uniform weights then carry 53 random bits instead of 24.
func Float64() Option { return func(c *config) { c.float64W = true } }
