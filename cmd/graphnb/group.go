package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/gpu/nccl"
	"github.com/graphnb/graphnb/launch"
)

// groupHelp documents the group flags in bench's and run's help.
const groupHelp = `GPU groups (several GPUs working on one graph):
  -gpus N     GPUs 0..N-1 as one group in this process.
  -ranks N    N processes, one per GPU (0..N-1), joined as one group: this
              command runs itself again once per GPU. The first process's
              output is this command's; the others' standard error lines
              are prefixed "[rank k] ". One that fails stops the others.
  Several hosts: run the same command on every host with -ranks (its
  GPUs), -world (the ranks of all hosts), -rank-base (the first rank on
  this host: 0 on the first host, then the sum of the hosts before) and
  -rendezvous tcp:HOST:PORT (HOST: the host of rank 0; the same on every
  host), e.g. on two hosts of 8 GPUs:
      node0$ graphnb bench bfs rmat -ranks 8 -world 16 -rendezvous tcp:node0:29500
      node1$ graphnb bench bfs rmat -ranks 8 -world 16 -rank-base 8 -rendezvous tcp:node0:29500
  GRAPHNB_NCCL_TIMEOUT (e.g. 60s) bounds every wait for the other ranks.
  GRAPHNB_NCCL_BLOCKING=0 runs the collectives on non-blocking NCCL
  communicators (slower: for comparisons) instead of blocking ones.`

// groupFlags are the flags that make a group of GPUs (bench, run).
type groupFlags struct {
	cmd             string // the command, for messages and to run again
	gpus, ranks     int
	rendezvous      string
	rankBase, world int
}

func (g *groupFlags) register(fs *flag.FlagSet, cmd string) {
	g.cmd = cmd
	fs.IntVar(&g.gpus, "gpus", 0, "run on a group of GPUs 0..N-1 in this process (see GPU groups above)")
	fs.IntVar(&g.ranks, "ranks", 0, "run N processes, one per GPU, as one group (see GPU groups above)")
	fs.StringVar(&g.rendezvous, "rendezvous", "", "with -ranks: where the ranks meet, tcp:HOST:PORT or file:PATH (default: a temporary file)")
	fs.IntVar(&g.rankBase, "rank-base", 0, "with -ranks over several hosts: the rank of this host's first process")
	fs.IntVar(&g.world, "world", 0, "with -ranks over several hosts: the number of ranks on all hosts (0: -ranks)")
}

// none reports that no group flag was given: the single-device path.
func (g *groupFlags) none() bool { return g.gpus == 0 && g.ranks == 0 }

// check refuses combinations that make no sense (usage errors), before
// any work; device is the command's -device ("" if none).
func (g *groupFlags) check(device string) error {
	switch {
	case g.gpus < 0 || g.ranks < 0:
		return usagef("%s: -gpus and -ranks take a number of GPUs ≥ 1", g.cmd)
	case g.gpus > 0 && g.ranks > 0:
		return usagef("%s: -gpus %d and -ranks %d: choose one (-gpus: one process, -ranks: one process per GPU)", g.cmd, g.gpus, g.ranks)
	case !g.none() && device != "":
		return usagef("%s: -device %s with a group: a group uses GPUs 0..N-1; leave -device out", g.cmd, device)
	case g.ranks == 0 && (g.rendezvous != "" || g.rankBase != 0 || g.world != 0):
		return usagef("%s: -rendezvous, -rank-base and -world go with -ranks", g.cmd)
	case g.rankBase < 0 || g.world < 0:
		return usagef("%s: -rank-base and -world must not be negative", g.cmd)
	case g.rankBase > 0 && g.world == 0:
		return usagef("%s: -rank-base %d needs -world, the number of ranks on all hosts", g.cmd, g.rankBase)
	case g.world > 0 && g.rankBase+g.ranks > g.world:
		return usagef("%s: -rank-base %d with -ranks %d makes ranks up to %d, more than -world %d", g.cmd, g.rankBase, g.ranks, g.rankBase+g.ranks-1, g.world)
	case g.world > g.ranks && g.rendezvous == "":
		return usagef("%s: -world %d over several hosts needs -rendezvous tcp:HOST:PORT, with the host of rank 0, the same on every host", g.cmd, g.world)
	}
	return nil
}

// leader reports whether this process writes the command's results: any
// process but a rank other than 0 of a -ranks group.
func (g *groupFlags) leader() bool {
	r, ok, err := launch.FromEnv()
	return g.ranks == 0 || !ok || err != nil || r.Rank == 0
}

// start does what the group flags ask for at the start of the command
// (args: its arguments; device: its -device, "" if none): it checks them,
// then with -ranks in the launcher runs the ranks and waits for them
// (done: the command has nothing left to do), else opens the group
// (openGroup; nil without a group flag) and returns it with its closer.
func (g *groupFlags) start(device string, args []string, stdout, stderr io.Writer) (grp *gpu.Group, closer func(), done bool, err error) {
	if err := g.check(device); err != nil {
		return nil, nil, true, err
	}
	if started, err := g.spawn(args, stdout, stderr); started {
		return nil, nil, true, err
	}
	grp, closer, err = openGroup(g)
	return grp, closer, err != nil, err
}

// selfCommand is the command line that runs graphnb with args (tests
// replace it: their binary is not graphnb).
var selfCommand = func(args []string) ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find this program to run it once per GPU: %w", err)
	}
	return append([]string{exe}, args...), nil
}

// spawn runs the command (args: its arguments after its name) once per
// rank when -ranks asks for it and this process is not itself a rank, and
// waits for them: started reports it did. A rank's failure or Ctrl-C
// stops them all.
func (g *groupFlags) spawn(args []string, stdout, stderr io.Writer) (started bool, err error) {
	if g.ranks == 0 {
		return false, nil
	}
	if _, isRank, err := launch.FromEnv(); isRank {
		return err != nil, err // a rank runs the command itself
	}
	if err := haveGPUs("-ranks", g.ranks); err != nil {
		return true, err
	}
	argv, err := selfCommand(append([]string{g.cmd}, args...))
	if err != nil {
		return true, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := launch.Options{Ranks: g.ranks, Rendezvous: g.rendezvous, RankBase: g.rankBase, World: g.world,
		RunID: os.Getenv(launch.EnvRunID)}
	return true, launch.Spawn(ctx, o, argv, stdout, stderr)
}

// haveGPUs checks that this machine has n GPUs for flag.
func haveGPUs(flag string, n int) error {
	devs, err := gpu.Devices()
	switch {
	case err != nil && len(devs) == 0:
		return fmt.Errorf("%s %d: this machine has no GPU graphnb can use (%v)", flag, n, err)
	case len(devs) < n:
		plural := "s"
		if len(devs) == 1 {
			plural = ""
		}
		return fmt.Errorf("%s %d: this machine has %d GPU%s", flag, n, len(devs), plural)
	}
	return nil
}

// openGroup opens the group the flags ask for and returns it with the
// function that closes it: -gpus N, GPUs 0..N-1 in this process; -ranks
// in a rank process (started by spawn), this rank's part of the group,
// joined through the rendezvous. Without a group flag it returns a nil
// group (the command runs on one device, as without groups).
func openGroup(g *groupFlags) (*gpu.Group, func(), error) {
	nop := func() {}
	if g.none() {
		return nil, nop, nil
	}
	var (
		grp *gpu.Group
		err error
	)
	if g.gpus > 0 {
		if err := haveGPUs("-gpus", g.gpus); err != nil {
			return nil, nop, err
		}
		devs, _ := gpu.Devices()
		grp, err = gpu.NewGroup(devs[:g.gpus]...)
	} else {
		grp, err = g.join()
	}
	if err != nil {
		return nil, nop, fmt.Errorf("%s: %w", g.cmd, err)
	}
	return grp, func() {
		if err := grp.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "graphnb: closing the group: %v\n", err)
		}
	}, nil
}

// join makes this rank process's part of a -ranks group.
func (g *groupFlags) join() (*gpu.Group, error) {
	r, ok, err := launch.FromEnv()
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, fmt.Errorf("-ranks: this process is not one of the ranks (%s is not set); graphnb starts them itself", launch.EnvRank)
	case r.Size != max(g.world, g.ranks):
		return nil, fmt.Errorf("-ranks: this process is %s, but the flags make a group of %d", r, max(g.world, g.ranks))
	}
	dev, err := gpu.Open(r.Device)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if d, err := time.ParseDuration(os.Getenv("GRAPHNB_NCCL_TIMEOUT")); err == nil && d > 0 {
		var cancel context.CancelFunc // the rendezvous waits as long as NCCL would
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	id, err := r.ShareID(ctx, func() (nccl.UniqueID, error) {
		if r.Size == 1 { // a group of one needs no NCCL
			return nccl.UniqueID{}, nil
		}
		return nccl.NewUniqueID()
	})
	if err != nil {
		return nil, err
	}
	return gpu.JoinGroup(dev, r.Rank, r.Size, id)
}
