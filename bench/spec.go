package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

// Spec is a sweep written down: the fields of Sweep with the variants
// named from the registry, as read from a JSON or YAML file by `graphnb
// bench -spec FILE`. Its zero fields mean Sweep's defaults, but for
// Permute: absent, it follows the algorithm's convention (on for bfs and
// sssp on rmat, Graph500Convention); "permute": false keeps the
// generator's labels. Scales and sizes are lists or strings in the
// command line's syntax ("14-24").
//
//	{"algo": "sssp", "family": "rmat", "scales": [14, 15, 16],
//	 "variants": ["cpu/dijkstra", "cpu/delta"], "roots": 32}
//
// or
//
//	algo: sssp
//	family: rmat
//	scales: 14-24
//	variants: [cpu/dijkstra, cpu/delta]
//	roots: 32
type Spec struct {
	Name        string       `json:"name,omitempty"`
	Algo        string       `json:"algo"`
	Family      string       `json:"family"`
	Variants    VariantNames `json:"variants,omitempty"`
	Scales      Numbers      `json:"scales,omitempty"`
	Sizes       Numbers      `json:"sizes,omitempty"`
	EdgeFactor  int          `json:"edge_factor,omitempty"`
	Weights     string       `json:"weights,omitempty"`
	Permute     *bool        `json:"permute,omitempty"`
	Symmetrize  bool         `json:"symmetrize,omitempty"`
	Roots       int          `json:"roots,omitempty"`
	Seed        uint64       `json:"seed,omitempty"`
	NoValidate  bool         `json:"no_validate,omitempty"`
	Repetitions int          `json:"repetitions,omitempty"`
}

// Numbers is a list of whole numbers that a spec writes as a list
// ([14, 15, 16]), one number (14) or a string in ParseScales's syntax
// ("14-24:2").
type Numbers []int

// UnmarshalJSON accepts a JSON array of whole numbers, one whole number,
// or a string that ParseScales reads.
func (n *Numbers) UnmarshalJSON(data []byte) error {
	var text string
	if err := json.Unmarshal(data, &text); err == nil {
		list, err := ParseScales(text)
		if err != nil { // ParseSpec adds the package's prefix
			return errors.New(strings.TrimPrefix(err.Error(), "bench: "))
		}
		*n = list
		return nil
	}
	var one int
	if err := json.Unmarshal(data, &one); err == nil {
		*n = Numbers{one}
		return nil
	}
	var list []int
	if err := json.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("%s is not a list of whole numbers; write [14, 15, 16], 14 or \"14-16\"", data)
	}
	*n = list
	return nil
}

// VariantNames is a list of variant names that a spec writes as a list
// (["cpu/dijkstra", "cpu/delta"]) or as one comma-separated string, as
// the -variants flag takes them.
type VariantNames []string

// UnmarshalJSON accepts a JSON array of strings or one string of
// comma-separated names.
func (n *VariantNames) UnmarshalJSON(data []byte) error {
	var text string
	if err := json.Unmarshal(data, &text); err == nil {
		*n = nil
		for _, name := range strings.Split(text, ",") {
			if name = strings.TrimSpace(name); name != "" {
				*n = append(*n, name)
			}
		}
		return nil
	}
	var list []string
	if err := json.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("%s is not a list of variant names; write [\"cpu/dijkstra\", \"cpu/delta\"] or \"cpu/dijkstra,cpu/delta\"", data)
	}
	*n = list
	return nil
}

// ParseSpec reads a sweep spec in JSON (a text that starts with "{") or
// in YAML (anything else); unknown fields are errors in both (a typo must
// not silently fall back to a default).
func ParseSpec(r io.Reader) (Spec, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Spec{}, fmt.Errorf("bench: reading a sweep spec: %w", err)
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) == 0 {
		return Spec{}, fmt.Errorf("bench: the sweep spec is empty; give at least algo and family")
	} else if trimmed[0] != '{' && trimmed[0] != '[' {
		if data, err = yaml.YAMLToJSON(data); err != nil {
			return Spec{}, fmt.Errorf("bench: reading a YAML sweep spec: %s", strings.TrimPrefix(err.Error(), "error converting YAML to JSON: "))
		}
	}
	var sp Spec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sp); err != nil {
		return Spec{}, fmt.Errorf("bench: reading a sweep spec: %w", err)
	}
	return sp, nil
}

// ReadSpecFile reads a JSON or YAML sweep spec from a file.
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

// permute is the spec's Permute, or when it says nothing the convention
// of its algorithm and family (Graph500Convention).
func (sp Spec) permute() bool {
	if sp.Permute != nil {
		return *sp.Permute
	}
	return Graph500Convention(sp.Algo, sp.Family)
}

// Graph500Convention reports whether a table of algo on family follows
// Graph500's rules, whose searches (BFS, and SSSP from Graph500 3.0) run
// on an R-MAT graph with its vertex labels randomly permuted: a spec (and
// "graphnb bench") that says nothing of Permute permutes them. The
// generator's own labels put the hubs at small ids next to each other,
// which a search exploits (fewer, denser bitmap words and cache lines);
// Graph500's figures are without that help.
func Graph500Convention(algo, family string) bool {
	a := strings.ToLower(algo)
	return (a == "bfs" || a == "sssp") && strings.EqualFold(family, "rmat")
}

// Sweep builds the sweep, looking the variants up in the registry (none
// named: every registered variant of the algorithm).
func (sp Spec) Sweep() (Sweep, error) {
	if sp.Algo == "" {
		return Sweep{}, fmt.Errorf("bench: the spec names no algorithm (\"algo\": one of bfs, sssp, mst, apsp, densebf)")
	}
	vs, err := LookupAll(sp.Algo, sp.Variants...)
	if err != nil {
		return Sweep{}, err
	}
	return Sweep{
		Name: sp.Name, Algo: sp.Algo, Variants: vs, Family: sp.Family, Scales: sp.Scales, Sizes: sp.Sizes,
		EdgeFactor: sp.EdgeFactor, Weights: sp.Weights, Permute: sp.permute(), Symmetrize: sp.Symmetrize,
		Roots: sp.Roots, Seed: sp.Seed, NoValidate: sp.NoValidate, Repetitions: sp.Repetitions,
	}, nil
}
