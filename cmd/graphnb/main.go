// Command graphnb is the graphnb tool: the Jupyter kernel, and from the
// command line graph generation and conversion, single algorithm runs,
// validated TEPS sweeps and in-process notebook execution.
//
// Usage:
//
//	graphnb gen GRAPH -o FILE [flags]     write a generated graph
//	graphnb info GRAPH [flags]            print sizes and degree statistics
//	graphnb run ALGO GRAPH [flags]        run an algorithm, print time and TEPS
//	graphnb bench ALGO FAMILY [flags]     run a TEPS sweep; write JSON, CSV, a chart
//	graphnb exec NOTEBOOK [flags]         execute a notebook in process; write its outputs
//	graphnb demo                          a one-minute CPU tour
//	graphnb install [-prefix DIR]         install the Jupyter kernelspec
//	graphnb kernel CONNECTION_FILE        run the Jupyter kernel
//	graphnb version
//
// GRAPH is rmat:SCALE[:EF], ssca2:SCALE, path:N, star:N, complete:N,
// grid:RxC, er:N:P or a file (.gr, .mtx, .el/.txt, .gnb, optionally .gz).
// Bad arguments print the usage and an error and exit with status 2.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/graphnb/graphnb/bench"
)

// version is the graphnb version, stamped into result files.
const version = "0.1.0"

// usageError is an error in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

var topUsage = `graphnb — graphs and GPU graph algorithms for notebooks

usage:
  graphnb gen GRAPH -o FILE [flags]   write a generated graph (format from FILE's extension)
  graphnb info GRAPH [flags]          print sizes and degree statistics
  graphnb run ALGO GRAPH [flags]      run an algorithm; print time, TEPS and validation
  graphnb bench ALGO FAMILY [flags]   run a TEPS sweep over scales and roots; JSON, CSV, chart
  graphnb exec NOTEBOOK [flags]       execute a notebook in process (-p name=value, -o, -inplace)
  graphnb demo                        a short tour of everything on the CPU
  graphnb install [-prefix DIR]       install the Jupyter kernelspec (honours JUPYTER_DATA_DIR)
  graphnb kernel CONNECTION_FILE      run the Jupyter kernel (Jupyter starts it)
  graphnb version                     print the version

GRAPH: rmat:SCALE[:EF] | ssca2:SCALE | path:N | star:N | complete:N | grid:RxC | er:N:P | FILE
ALGO:  ` + algoList + `

"graphnb COMMAND -h" shows a command's flags.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	// Result tables record the tool's version, whichever command (bench,
	// or a notebook cell under kernel or exec) measures them.
	bench.Version = version
	if len(args) == 0 {
		fmt.Fprint(stderr, topUsage)
		fmt.Fprintln(stderr, "\ngraphnb: no command given")
		return 2
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "gen":
		err = cmdGen(rest, stdout, stderr)
	case "info":
		err = cmdInfo(rest, stdout, stderr)
	case "run":
		err = cmdRun(rest, stdout, stderr)
	case "bench":
		err = cmdBench(rest, stdout, stderr)
	case "exec":
		err = cmdExec(rest, stdout, stderr)
	case "demo":
		err = cmdDemo(rest, stdout, stderr)
	case "install":
		err = cmdInstall(rest, stdout, stderr)
	case "kernel":
		err = cmdKernel(rest, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "graphnb %s\n", version)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, topUsage)
	default:
		err = usagef("unknown command %q", cmd)
		fmt.Fprint(stderr, topUsage)
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "graphnb: %s\n", err)
		return 2
	default:
		fmt.Fprintf(stderr, "graphnb: %s\n", err)
		return 1
	}
}
