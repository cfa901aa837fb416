package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/spec"
)

// errHelp reports that -h was asked for and the usage already printed.
var errHelp = errors.New("help shown")

// graphFlags are the flags that say how to make a GRAPH argument.
type graphFlags struct {
	seed       uint64
	weights    string
	permute    bool
	symmetrize bool
	float64    bool
}

func (gf *graphFlags) register(fs *flag.FlagSet) {
	fs.Uint64Var(&gf.seed, "seed", 1, "random seed of the generators and of root selection")
	fs.StringVar(&gf.weights, "weights", "uniform", "generated weights: uniform (in [0,1)), int:MAX (1..MAX) or none")
	fs.BoolVar(&gf.permute, "permute", false, "relabel R-MAT vertices randomly, as Graph500 does")
	fs.BoolVar(&gf.symmetrize, "symmetrize", false, "read a directed file as an undirected graph")
	fs.BoolVar(&gf.float64, "float64", false, "keep weights as float64 instead of float32")
}

func (gf *graphFlags) options() spec.Options {
	return spec.Options{Seed: gf.seed, Weights: gf.weights, PermuteVertices: gf.permute,
		Symmetrize: gf.symmetrize, Float64: gf.float64}
}

// load parses a GRAPH argument and makes the graph. A malformed
// description is a usage error; a failure to generate or read is not.
func (gf *graphFlags) load(arg string) (*graph.CSR, spec.Spec, error) {
	sp, err := gf.parse(arg)
	if err != nil {
		return nil, sp, err
	}
	g, err := sp.Make(gf.options())
	return g, sp, err
}

// parse parses a GRAPH argument and checks the flags that make it; either
// fault is a usage error.
func (gf *graphFlags) parse(arg string) (spec.Spec, error) {
	sp, err := spec.Parse(arg)
	if err != nil {
		return sp, usageError{err.Error()}
	}
	if err := gf.options().Validate(); err != nil {
		return sp, usageError{err.Error()}
	}
	return sp, nil
}

// parse parses flags that may come before or after the positional
// arguments (Go's flag package stops at the first positional one) and
// returns the positionals.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	var pos []string
	for {
		// The flag package prints a bad flag's error before the usage, and
		// main prints it again: silence the package and print the usage
		// here, so the error appears once, last.
		fs.SetOutput(io.Discard)
		err := fs.Parse(args)
		fs.SetOutput(stderr)
		if err != nil {
			fs.Usage()
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func newFlagSet(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: graphnb %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// wantArgs checks the number of positional arguments.
func wantArgs(fs *flag.FlagSet, pos []string, names ...string) error {
	if len(pos) != len(names) {
		fs.Usage()
		return usagef("%s: want %s, got %d argument(s): %s", fs.Name(), strings.Join(names, " "), len(pos), strings.Join(pos, " "))
	}
	return nil
}
