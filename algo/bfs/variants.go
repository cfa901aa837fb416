package bfs

// Variant is a named GPU configuration: a curve of a study's figure.
type Variant struct {
	// Label is the curve's name, as the figure writes it.
	Label string
	// Options configure Prepare or Run for it.
	Options []GPUOption
}

// SeedVariants returns the GPU curves of the BFS study's figure (docs/studies.md
// §2), in its order:
//
//   - "dynamic parallelism": child grids on small levels, the edge scan
//     with both switches on elsewhere;
//   - "cache && restrict on": the edge scan with the edge permutation and
//     the read-only path;
//   - "cache off": read-only path, no permutation;
//   - "restrict off": permutation, plain loads;
//   - "cache && restrict off": the plain edge scan.
//
// The figure's sixth curve, the CPU, is DirectionOptimizing.
func SeedVariants() []Variant {
	return []Variant{
		{"dynamic parallelism", []GPUOption{WithMethod(DynamicParallelism), TextureCache(true), Permute(true)}},
		{"cache && restrict on", []GPUOption{WithMethod(EdgeScan), TextureCache(true), Permute(true)}},
		{"cache off", []GPUOption{WithMethod(EdgeScan), TextureCache(true), Permute(false)}},
		{"restrict off", []GPUOption{WithMethod(EdgeScan), TextureCache(false), Permute(true)}},
		{"cache && restrict off", []GPUOption{WithMethod(EdgeScan), TextureCache(false), Permute(false)}},
	}
}

// ModernVariants returns the baselines the notebooks compare the study
// with: "direction-optimizing (GPU)", Beamer's direction-optimizing BFS
// (α = 15, β = 18) with a frontier queue and a frontier bitmap.
func ModernVariants() []Variant {
	return []Variant{
		{"direction-optimizing (GPU)", []GPUOption{WithMethod(DirectionOptimizingGPU)}},
	}
}
