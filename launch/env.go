package launch

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/graphnb/graphnb/gpu/nccl"
)

// The environment variables of the contract between the launcher and a
// rank process (see the package doc).
const (
	EnvRank       = "GRAPHNB_RANK"
	EnvRanks      = "GRAPHNB_RANKS"
	EnvLocalRank  = "GRAPHNB_LOCAL_RANK"
	EnvDevice     = "GRAPHNB_DEVICE"
	EnvRendezvous = "GRAPHNB_RENDEZVOUS"
	EnvRunID      = "GRAPHNB_RUN_ID"
)

// Rank is a rank process's place in its group, read from the environment
// by FromEnv.
type Rank struct {
	// Rank is the process's rank and Size the group's size (every host).
	Rank, Size int
	// Local is the process's index among its launcher's processes, and
	// Device the CUDA ordinal of its GPU.
	Local, Device int
	// Rendezvous is where the unique id is shared (file:PATH,
	// tcp:HOST:PORT) and RunID the run's token ("" if none).
	Rendezvous, RunID string
}

// String is e.g. "rank 1 of 4 (GPU 1)".
func (r Rank) String() string {
	return fmt.Sprintf("rank %d of %d (GPU %d)", r.Rank, r.Size, r.Device)
}

// ShareID shares the unique id of the group through r's rendezvous: rank 0
// makes it with newID, the others receive it (see the package ShareID).
func (r Rank) ShareID(ctx context.Context, newID func() (nccl.UniqueID, error)) (nccl.UniqueID, error) {
	return ShareID(ctx, r.Rendezvous, r.RunID, r.Rank, r.Size, newID)
}

// FromEnv reads the contract's variables. It reports false (and no error)
// when GRAPHNB_RANK is not set: the process is not a rank. A rank whose
// variables are missing or malformed gets an error naming the variable,
// its value and what is wanted.
func FromEnv() (Rank, bool, error) {
	return fromLookup(os.LookupEnv)
}

func fromLookup(lookup func(string) (string, bool)) (Rank, bool, error) {
	if _, ok := lookup(EnvRank); !ok {
		return Rank{}, false, nil
	}
	var r Rank
	num := func(name string, lo int, dflt *int) (int, error) {
		v, ok := lookup(name)
		v = strings.TrimSpace(v)
		if !ok || v == "" {
			if dflt != nil {
				return *dflt, nil
			}
			return 0, fmt.Errorf("launch: %s is set but %s is not; a rank process needs both (graphnb -ranks sets them)", EnvRank, name)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo {
			return 0, fmt.Errorf("launch: %s=%q: want a whole number ≥ %d", name, v, lo)
		}
		return n, nil
	}
	var err error
	if r.Rank, err = num(EnvRank, 0, nil); err != nil {
		return r, true, err
	}
	if r.Size, err = num(EnvRanks, 1, nil); err != nil {
		return r, true, err
	}
	if r.Rank >= r.Size {
		return r, true, fmt.Errorf("launch: %s=%d with %s=%d: want 0 ≤ rank < ranks", EnvRank, r.Rank, EnvRanks, r.Size)
	}
	zero := 0
	if r.Local, err = num(EnvLocalRank, 0, &zero); err != nil {
		return r, true, err
	}
	if r.Device, err = num(EnvDevice, 0, &r.Local); err != nil {
		return r, true, err
	}
	r.Rendezvous, _ = lookup(EnvRendezvous)
	r.Rendezvous = strings.TrimSpace(r.Rendezvous)
	r.RunID, _ = lookup(EnvRunID)
	if _, err := parseRendezvous(r.Rendezvous); err != nil {
		return r, true, fmt.Errorf("launch: %s: %w", EnvRendezvous, err)
	}
	return r, true, nil
}

// DefaultTimeout is how long ShareID waits when its context has no
// deadline: as long as NCCL waits for the ranks to join.
const DefaultTimeout = nccl.DefaultTimeout

// rendezvous is a parsed GRAPHNB_RENDEZVOUS.
type rendezvous struct {
	kind string // "file" or "tcp"
	addr string // the path, or host:port
}

func (rv rendezvous) String() string { return rv.kind + ":" + rv.addr }

// parseRendezvous reads file:PATH or tcp:HOST:PORT.
func parseRendezvous(s string) (rendezvous, error) {
	kind, addr, ok := strings.Cut(s, ":")
	switch {
	case s == "":
		return rendezvous{}, fmt.Errorf("no rendezvous; want file:PATH or tcp:HOST:PORT")
	case !ok || addr == "":
		return rendezvous{}, fmt.Errorf("rendezvous %q: want file:PATH or tcp:HOST:PORT", s)
	case kind == "file":
		return rendezvous{kind, addr}, nil
	case kind == "tcp":
		host, port, err := splitHostPort(addr)
		if err != nil {
			return rendezvous{}, fmt.Errorf("rendezvous %q: %v; want tcp:HOST:PORT, e.g. tcp:node0:29500", s, err)
		}
		return rendezvous{kind, net.JoinHostPort(host, port)}, nil
	}
	return rendezvous{}, fmt.Errorf("rendezvous %q: unknown kind %q; want file:PATH or tcp:HOST:PORT", s, kind)
}

// deadline is ctx's deadline, or DefaultTimeout from now.
func deadline(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(DefaultTimeout)
}
