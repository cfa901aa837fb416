package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Spec is a sweep written down: the fields of Sweep with the variants
// named from the registry, as read from a JSON file by `graphnb bench
// -spec FILE`. Its zero fields mean Sweep's defaults.
//
//	{"algo": "sssp", "family": "rmat", "scales": [14, 15, 16],
//	 "variants": ["cpu/dijkstra", "cpu/delta"], "roots": 32}
type Spec struct {
	Name        string   `json:"name,omitempty"`
	Algo        string   `json:"algo"`
	Family      string   `json:"family"`
	Variants    []string `json:"variants,omitempty"`
	Scales      []int    `json:"scales,omitempty"`
	Sizes       []int    `json:"sizes,omitempty"`
	EdgeFactor  int      `json:"edge_factor,omitempty"`
	Weights     string   `json:"weights,omitempty"`
	Permute     bool     `json:"permute,omitempty"`
	Symmetrize  bool     `json:"symmetrize,omitempty"`
	Roots       int      `json:"roots,omitempty"`
	Seed        uint64   `json:"seed,omitempty"`
	NoValidate  bool     `json:"no_validate,omitempty"`
	Repetitions int      `json:"repetitions,omitempty"`
}

// ParseSpec reads a JSON sweep spec; unknown fields are errors (a typo
// must not silently fall back to a default).
func ParseSpec(r io.Reader) (Spec, error) {
	var sp Spec
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sp); err != nil {
		return Spec{}, fmt.Errorf("bench: reading a sweep spec: %w", err)
	}
	return sp, nil
}

// ReadSpecFile reads a JSON sweep spec from a file.
func ReadSpecFile(path string) (Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return Spec{}, fmt.Errorf("bench: %w", err)
	}
	defer f.Close()
	sp, err := ParseSpec(f)
	if err != nil {
		return Spec{}, fmt.Errorf("%w (in %s)", err, path)
	}
	return sp, nil
}

// Sweep builds the sweep, looking the variants up in the registry (none
// named: every registered variant of the algorithm).
func (sp Spec) Sweep() (Sweep, error) {
	if sp.Algo == "" {
		return Sweep{}, fmt.Errorf("bench: the spec names no algorithm (\"algo\": one of bfs, sssp, mst, apsp)")
	}
	vs, err := LookupAll(sp.Algo, sp.Variants...)
	if err != nil {
		return Sweep{}, err
	}
	return Sweep{
		Name: sp.Name, Algo: sp.Algo, Variants: vs, Family: sp.Family, Scales: sp.Scales, Sizes: sp.Sizes,
		EdgeFactor: sp.EdgeFactor, Weights: sp.Weights, Permute: sp.Permute, Symmetrize: sp.Symmetrize,
		Roots: sp.Roots, Seed: sp.Seed, NoValidate: sp.NoValidate, Repetitions: sp.Repetitions,
	}, nil
}
