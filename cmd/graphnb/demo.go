package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// demo is the CPU tour "graphnb demo" prints: every algorithm once, on
// graphs small enough for a laptop, each result validated.
var demo = [][]string{
	{"info", "rmat:16"},
	{"run", "bfs", "rmat:16", "-roots", "8"},
	{"run", "sssp", "rmat:16", "-roots", "4"},
	{"run", "dijkstra", "rmat:16", "-roots", "2"},
	{"run", "bellman-ford", "rmat:16", "-roots", "2"},
	{"run", "mst", "ssca2:16", "-weights", "int:255"},
	{"run", "kruskal", "ssca2:16", "-weights", "int:255"},
	{"run", "apsp", "grid:32x32", "-weights", "int:100", "-int"},
	{"run", "densebf", "er:1024:0.01", "-weights", "int:100", "-int", "-roots", "2"},
}

func cmdDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", "demo")
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos); err != nil {
		return err
	}
	start := time.Now()
	for _, line := range demo {
		fmt.Fprintf(stdout, "\n$ graphnb %s\n", strings.Join(line, " "))
		var err error
		switch line[0] {
		case "info":
			err = cmdInfo(line[1:], stdout, stderr)
		case "run":
			err = cmdRun(line[1:], stdout, stderr)
		}
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "\ndemo finished in %.1f s; every result was validated by an independent checker\n", time.Since(start).Seconds())
	return nil
}
