package main

import (
	"fmt"
	"io"
	"time"

	"github.com/graphnb/graphnb/graph/graphio"
)

func cmdGen(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gen", "gen GRAPH -o FILE [flags]")
	var gf graphFlags
	gf.register(fs)
	out := fs.String("o", "", "output file; the extension picks the format: .gr, .mtx, .el, .gnb (binary), plus .gz")
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos, "GRAPH"); err != nil {
		return err
	}
	if *out == "" {
		fs.Usage()
		return usagef("gen: -o FILE is required")
	}
	if _, err := graphio.FormatOf(*out); err != nil {
		return usageError{err.Error()}
	}
	start := time.Now()
	g, sp, err := gf.load(pos[0])
	if err != nil {
		return err
	}
	built := time.Since(start)
	start = time.Now()
	if err := graphio.Save(*out, g); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %v\n  generated in %.2f s, written to %s in %.2f s\n",
		sp, g, built.Seconds(), *out, time.Since(start).Seconds())
	return nil
}

func cmdInfo(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("info", "info GRAPH [flags]")
	var gf graphFlags
	gf.register(fs)
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos, "GRAPH"); err != nil {
		return err
	}
	start := time.Now()
	g, sp, err := gf.load(pos[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %v (made in %.2f s)\n%v", sp, g, time.Since(start).Seconds(), g.DegreeStats())
	return nil
}
