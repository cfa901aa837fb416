package main

import (
	"context"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/graphnb/graphnb/kernel"
	"github.com/graphnb/graphnb/session"
)

// cmdKernel runs the Jupyter kernel: Jupyter starts it through the
// kernelspec's argv, "graphnb kernel {connection_file}".
func cmdKernel(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("kernel", "kernel CONNECTION_FILE\n\nJupyter runs this through the kernelspec that \"graphnb install\" writes.")
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos, "CONNECTION_FILE"); err != nil {
		return err
	}
	ci, err := kernel.ReadConnectionFile(pos[0])
	if err != nil {
		return err
	}
	sess, err := session.New(sessionOptions())
	if err != nil {
		return fmt.Errorf("kernel: starting the interpreter: %w", err)
	}
	defer sess.Close()
	// SIGTERM (a client's forced shutdown) ends the kernel cleanly; SIGINT
	// interrupts the running cell, which Serve handles itself.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	return kernel.Serve(ctx, ci, engine{sess}, kernel.Options{Version: version})
}
