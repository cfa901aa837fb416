// Package launch runs a group of GPUs as one process per GPU: the
// launcher (Spawn) starts the processes, each learns its place from its
// environment (FromEnv), and the ranks share the NCCL unique id through a
// rendezvous (ShareID) before joining the group (gpu.JoinGroup). The same
// processes may run on several hosts: one launcher per host, each given
// its first rank and the size of the whole group.
//
// # The environment of a rank process
//
//	GRAPHNB_RANK        this process's rank in the group, 0 ≤ rank < size
//	GRAPHNB_RANKS       the group's size, over every host
//	GRAPHNB_LOCAL_RANK  the process's index among the launcher's, from 0
//	GRAPHNB_DEVICE      the CUDA device ordinal it uses (also what
//	                    gpu.Default picks); without it, the local rank
//	GRAPHNB_RENDEZVOUS  where the unique id is shared: file:PATH or
//	                    tcp:HOST:PORT (HOST: rank 0's host)
//	GRAPHNB_RUN_ID      a token naming this run, new for every run, so
//	                    that a rendezvous never takes an id of an earlier
//	                    run (required by file:, checked by tcp:); the
//	                    launcher makes a random one for a group on one
//	                    host
//	NCCL_NVLS_ENABLE=0  NVLink multicast stays off (see package nccl)
//
// A process with GRAPHNB_RANK set is a rank: it must not start ranks of
// its own.
//
// # Rendezvous
//
// Rank 0 makes the id and publishes it; the others wait for it until the
// context's deadline (DefaultTimeout without one). With file:PATH (a
// folder every rank can read, e.g. a shared file system across hosts),
// rank 0 writes PATH atomically (a temporary file renamed) with the run
// token, each other rank acknowledges with PATH.rank<k>, and rank 0
// removes them all once every rank came. With tcp:HOST:PORT, rank 0
// listens there and serves the id to each of the other ranks, which
// connect (retrying until the deadline) and introduce themselves with a
// versioned line naming the protocol, the run token, their rank and the
// size; a connection that does not is refused and closed.
//
// # Output
//
// The launcher's first process (local rank 0) writes to the launcher's
// standard output and error unchanged, so that a JSON table or a progress
// bar comes out as from one process. The other processes' standard error
// lines are prefixed "[rank k] "; their standard output is dropped unless
// Options.AllStdout asks for it (then prefixed too). A process that fails
// stops the others after Options.Grace, and Spawn's error names its rank,
// exit status and last lines of standard error.
package launch
