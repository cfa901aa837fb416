package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/graphnb/graphnb/notebook"
)

// paramFlags collects repeated -p name=value flags.
type paramFlags []notebook.Param

func (p *paramFlags) String() string {
	parts := make([]string, len(*p))
	for i, x := range *p {
		parts[i] = x.Name + "=" + x.Value
	}
	return strings.Join(parts, " ")
}

func (p *paramFlags) Set(s string) error {
	x, err := notebook.ParseParam(s)
	if err != nil {
		return err
	}
	*p = append(*p, x)
	return nil
}

// cmdExec executes a notebook in process, like papermill with the
// graphnb kernel, and writes it back with its outputs.
func cmdExec(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("exec", `exec NOTEBOOK [-o OUT.ipynb | -inplace] [-p name=value ...] [-timeout D]

Runs the notebook's code cells in order with the graphnb kernel's interpreter,
in this process (no Jupyter needed), and writes the notebook with its outputs
to NAME.out.ipynb beside it (the repository's .gitignore ignores
*.out.ipynb), or to -o, or over it with -inplace; the last line printed says
where. -p overrides a
value of the cell tagged "parameters" (papermill's convention): the value is a
Go literal (20, 1.5, true, "text") or a bare word taken as a string. The first
failing cell stops the run: its error is in the notebook written, and the exit
status is 1; with -allow-errors every cell runs and the status is 0, as with
nbconvert --allow-errors. Ctrl-C interrupts the running cell and writes what
ran.`)
	out := fs.String("o", "", "write the executed notebook to `FILE` (- for standard output); default NAME.out.ipynb beside NOTEBOOK")
	inplace := fs.Bool("inplace", false, "write the executed notebook over NOTEBOOK")
	var params paramFlags
	fs.Var(&params, "p", "override a parameter: `name=value` (repeatable)")
	timeout := fs.Duration("timeout", 0, "interrupt a cell that runs longer than `D` (e.g. 10m) and stop; 0: no limit")
	verbose := fs.Bool("v", false, "print a line to standard error as each cell starts and ends")
	allowErrors := fs.Bool("allow-errors", false, "run every cell even when some fail; their errors are in the notebook and the exit status is 0")
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos, "NOTEBOOK"); err != nil {
		return err
	}
	if *inplace && *out != "" {
		return usagef("exec: -o and -inplace exclude each other")
	}
	if *timeout < 0 {
		return usagef("exec: -timeout must not be negative")
	}
	in := pos[0]
	dest := *out
	switch {
	case *inplace:
		dest = in
	case dest == "":
		dest = strings.TrimSuffix(in, ".ipynb") + ".out.ipynb"
	}

	nb, err := notebook.ReadFile(in)
	if err != nil {
		return err
	}
	// SIGINT interrupts the running cell, SIGTERM too (a CI time limit);
	// a second signal ends the process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); stop() }()

	opt := notebook.ExecOptions{Params: params, CellTimeout: *timeout, AllowErrors: *allowErrors, Session: sessionOptions()}
	if *verbose {
		opt.Log = stderr
	}
	// Cells run in the notebook's directory, as under Jupyter, so a
	// notebook opens its data files by relative paths either way.
	shown := dest // as the user wrote it, for messages
	if dest != "-" {
		if dest, err = filepath.Abs(dest); err != nil {
			return err
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := os.Chdir(filepath.Dir(in)); err != nil {
		return fmt.Errorf("exec %s: %w", in, err)
	}
	start := time.Now()
	runErr := notebook.Execute(ctx, nb, opt)
	if err := os.Chdir(wd); err != nil {
		return err
	}
	var cellErr *notebook.CellError
	switch {
	case errors.Is(runErr, notebook.ErrParameter):
		return usageError{runErr.Error()}
	case runErr != nil && !errors.As(runErr, &cellErr):
		return fmt.Errorf("exec %s: %w", in, runErr)
	}
	if dest == "-" {
		if err := nb.Write(stdout); err != nil {
			return err
		}
	} else if err := nb.WriteFile(dest); err != nil {
		return err
	}
	if cellErr != nil {
		return fmt.Errorf("exec %s: %v (written to %s)", in, cellErr, shown)
	}
	if dest != "-" {
		ran := 0
		for _, c := range nb.Cells {
			if c.ExecutionCount > 0 {
				ran++
			}
		}
		fmt.Fprintf(stdout, "%s: %d cells run in %.1f s, written to %s\n", in, ran, time.Since(start).Seconds(), shown)
	}
	return nil
}
