package launch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/graphnb/graphnb/gpu/nccl"
)

// protocol opens every rendezvous file and message; its number changes
// with the format.
const protocol = "graphnb-rendezvous 1"

// ShareID gives every rank of a group of size ranks the same unique id:
// rank 0 makes it with newID and publishes it at rendezvous (file:PATH or
// tcp:HOST:PORT, see the package doc); the other ranks wait for it. run is
// the run's token (GRAPHNB_RUN_ID): a file rendezvous needs one, so that
// it never takes the file of an earlier run; a TCP one refuses ranks of
// another token ("" matches only ""). Rank 0 returns once every other
// rank has the id. Waiting ends at ctx's deadline (DefaultTimeout
// without one) with an error naming the rendezvous and, on rank 0, how
// many ranks came; cancelling ctx ends it at once.
func ShareID(ctx context.Context, rendezvous, run string, rank, size int, newID func() (nccl.UniqueID, error)) (nccl.UniqueID, error) {
	var none nccl.UniqueID
	rv, err := parseRendezvous(rendezvous)
	switch {
	case err != nil:
		return none, fmt.Errorf("launch: %w", err)
	case size < 1 || rank < 0 || rank >= size:
		return none, fmt.Errorf("launch: rendezvous %s: rank %d of %d: want 0 ≤ rank < size", rv, rank, size)
	case strings.ContainsAny(run, " \t\r\n"):
		return none, fmt.Errorf("launch: run token %q: no spaces allowed (%s)", run, EnvRunID)
	case rv.kind == "file" && run == "":
		return none, fmt.Errorf("launch: rendezvous %s needs a run token (%s, the same on every host) to tell this run's file from an earlier one's; set it, or use tcp:HOST:PORT", rv, EnvRunID)
	case rank == 0 && newID == nil:
		return none, errors.New("launch: ShareID: rank 0 needs a function that makes the id")
	}
	ctx, cancel := context.WithDeadline(ctx, deadline(ctx))
	defer cancel()
	s := share{rv: rv, run: run, rank: rank, size: size, start: time.Now()}
	if rv.kind == "file" {
		if rank == 0 {
			return s.publishFile(ctx, newID)
		}
		return s.fetchFile(ctx)
	}
	if rank == 0 {
		return s.serve(ctx, newID)
	}
	return s.dial(ctx)
}

// share is one rank's side of a rendezvous.
type share struct {
	rv         rendezvous
	run        string
	rank, size int
	start      time.Time
}

// fail is the error of a rendezvous that ended before it was done: ctx's
// deadline passed (what says what was missing) or ctx was cancelled.
func (s *share) fail(ctx context.Context, what string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("launch: rendezvous %s, rank %d of %d: %s after %v; did every rank start, with the same %s and %s?",
			s.rv, s.rank, s.size, what, time.Since(s.start).Round(time.Millisecond), EnvRendezvous, EnvRunID)
	}
	return fmt.Errorf("launch: rendezvous %s, rank %d of %d: stopped (%w) while %s", s.rv, s.rank, s.size, ctx.Err(), what)
}

// missing describes the ranks that did not come: "1 of 4 ranks came
// (missing: 1, 2, 3)".
func (s *share) missing(came map[int]bool) string {
	var miss []string
	for k := 1; k < s.size; k++ {
		if !came[k] {
			miss = append(miss, strconv.Itoa(k))
		}
	}
	return fmt.Sprintf("%d of %d ranks came (missing: %s)", len(came)+1, s.size, strings.Join(miss, ", "))
}

// poll calls try until it reports done or an error, or ctx ends; it
// sleeps a little more each time, up to 200 ms.
func poll(ctx context.Context, try func() (bool, error)) error {
	wait := 10 * time.Millisecond
	for {
		done, err := try()
		if done || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// idFile is the text of a rendezvous file: the protocol line, then
// "run TOKEN", "size N" and "id HEX" lines.
func idFile(run string, size int, id nccl.UniqueID) string {
	return fmt.Sprintf("%s\nrun %s\nsize %d\nid %s\n", protocol, run, size, id)
}

// parseFile reads a rendezvous or acknowledgement file into its fields;
// ok is false for a file that is not one, or not complete.
func parseFile(b []byte) (fields map[string]string, ok bool) {
	text := string(b)
	if !strings.HasPrefix(text, protocol+"\n") || !strings.HasSuffix(text, "\n") {
		return nil, false
	}
	fields = map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n")[1:] {
		k, v, _ := strings.Cut(line, " ")
		fields[k] = v
	}
	return fields, true
}

// writeAtomic writes text to path through a temporary file in the same
// folder, renamed over path, so that a reader sees all or nothing.
func writeAtomic(path, text string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(text)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// ackPath is the file by which rank k tells rank 0 it has the id.
func (s *share) ackPath(k int) string { return fmt.Sprintf("%s.rank%d", s.rv.addr, k) }

// publishFile is rank 0 of a file rendezvous: write the id, wait for
// every rank's acknowledgement, remove the files.
func (s *share) publishFile(ctx context.Context, newID func() (nccl.UniqueID, error)) (nccl.UniqueID, error) {
	id, err := newID()
	if err != nil {
		return id, fmt.Errorf("launch: rendezvous %s: making the id: %w", s.rv, err)
	}
	if err := writeAtomic(s.rv.addr, idFile(s.run, s.size, id)); err != nil {
		return id, fmt.Errorf("launch: rendezvous %s: writing the id: %w (the folder must exist and be writable by rank 0, and readable by every rank)", s.rv, err)
	}
	came := map[int]bool{}
	cleanup := func() {
		os.Remove(s.rv.addr)
		for k := range came {
			os.Remove(s.ackPath(k))
		}
	}
	defer cleanup()
	err = poll(ctx, func() (bool, error) {
		for k := 1; k < s.size; k++ {
			if came[k] {
				continue
			}
			b, err := os.ReadFile(s.ackPath(k))
			if err != nil {
				continue
			}
			if f, ok := parseFile(b); ok && f["run"] == s.run {
				came[k] = true
			}
		}
		return len(came) == s.size-1, nil
	})
	if err != nil {
		return id, s.fail(ctx, s.missing(came))
	}
	return id, nil
}

// fetchFile is rank k > 0 of a file rendezvous: wait for the id file of
// this run, then acknowledge it.
func (s *share) fetchFile(ctx context.Context) (nccl.UniqueID, error) {
	var (
		id    nccl.UniqueID
		stale string
	)
	err := poll(ctx, func() (bool, error) {
		b, err := os.ReadFile(s.rv.addr)
		if err != nil {
			return false, nil
		}
		f, ok := parseFile(b)
		if !ok {
			return false, nil
		}
		if f["run"] != s.run {
			stale = f["run"]
			return false, nil
		}
		if f["size"] != strconv.Itoa(s.size) {
			return false, fmt.Errorf("launch: rendezvous %s: rank 0 made a group of %s ranks, rank %d was told %d; give every rank the same size", s.rv, f["size"], s.rank, s.size)
		}
		if id, err = nccl.ParseUniqueID(f["id"]); err != nil {
			return false, fmt.Errorf("launch: rendezvous %s: %w", s.rv, err)
		}
		return true, nil
	})
	if err != nil {
		if ctx.Err() == nil {
			return id, err
		}
		what := "no id from rank 0"
		if stale != "" {
			what += fmt.Sprintf(" (the file there is of another run, %q, not %q)", stale, s.run)
		}
		return id, s.fail(ctx, what)
	}
	if err := writeAtomic(s.ackPath(s.rank), fmt.Sprintf("%s\nrun %s\nrank %d\n", protocol, s.run, s.rank)); err != nil {
		return id, fmt.Errorf("launch: rendezvous %s: rank %d acknowledging the id: %w", s.rv, s.rank, err)
	}
	return id, nil
}

// hello is a rank's first line on a TCP rendezvous.
func hello(run string, rank, size int) string {
	if run == "" {
		run = "-"
	}
	return fmt.Sprintf("%s run=%s rank=%d size=%d\n", protocol, run, rank, size)
}

// parseHello reads a hello line.
func parseHello(line string) (run string, rank, size int, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSuffix(line, "\n"), protocol+" ")
	if !found {
		return "", 0, 0, false
	}
	n, err := fmt.Sscanf(rest, "run=%s rank=%d size=%d", &run, &rank, &size)
	if err != nil || n != 3 {
		return "", 0, 0, false
	}
	if run == "-" {
		run = ""
	}
	return run, rank, size, true
}

// connTimeout bounds one TCP exchange, so that a stray connection that
// says nothing does not hold a rank.
const connTimeout = 5 * time.Second

// serve is rank 0 of a TCP rendezvous: listen, make the id, give it to
// each other rank once.
func (s *share) serve(ctx context.Context, newID func() (nccl.UniqueID, error)) (nccl.UniqueID, error) {
	var none nccl.UniqueID
	ln, err := net.Listen("tcp", s.rv.addr)
	if err != nil {
		return none, fmt.Errorf("launch: rendezvous %s: rank 0 cannot listen there: %w (is the port taken, or the host not rank 0's?)", s.rv, err)
	}
	defer ln.Close()
	id, err := newID()
	if err != nil {
		return none, fmt.Errorf("launch: rendezvous %s: making the id: %w", s.rv, err)
	}
	var (
		mu      sync.Mutex
		came    = map[int]bool{}
		refused []string
		all     = make(chan struct{})
		conns   sync.WaitGroup
		open    = map[net.Conn]bool{}
		closing bool
	)
	served := map[int]bool{}
	// answer validates one hello and says what to reply; rank is the
	// rank it accepts (0: none). The group is complete once every
	// accepted rank's reply is written (sent), not when it is accepted:
	// the listener and the connections still open close then.
	answer := func(line string) (reply string, rank int) {
		run, rank, size, ok := parseHello(line)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case !ok:
			return "", 0 // not a rank: close without a word
		case run != s.run:
			reply = fmt.Sprintf("refused run rank %d is of run %q, rank 0 of run %q", rank, run, s.run)
		case size != s.size:
			reply = fmt.Sprintf("refused size rank %d was told the group has %d ranks, rank 0 %d", rank, size, s.size)
		case rank < 1 || rank >= s.size:
			reply = fmt.Sprintf("refused rank rank %d is not a rank of a group of %d other than 0", rank, s.size)
		case came[rank]:
			reply = fmt.Sprintf("refused rank rank %d came twice; give every process its own rank", rank)
		default:
			came[rank] = true
			return "ok " + id.String(), rank
		}
		refused = append(refused, strings.SplitN(reply, " ", 3)[2])
		return reply, 0
	}
	// sent records whether rank's reply went out: a rank whose reply
	// could not be written may come again.
	sent := func(rank int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			delete(came, rank)
			return
		}
		served[rank] = true
		if len(served) == s.size-1 {
			close(all)
		}
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			if closing {
				mu.Unlock()
				c.Close()
				return
			}
			conns.Add(1)
			open[c] = true
			mu.Unlock()
			go func() {
				defer conns.Done()
				defer func() {
					mu.Lock()
					delete(open, c)
					mu.Unlock()
					c.Close()
				}()
				c.SetDeadline(time.Now().Add(connTimeout))
				line, err := bufio.NewReader(c).ReadString('\n')
				if err != nil || len(line) > 512 {
					return
				}
				if reply, rank := answer(line); reply != "" {
					_, err := fmt.Fprintf(c, "%s %s\n", protocol, reply)
					if rank > 0 {
						sent(rank, err)
					}
				}
			}()
		}
	}()
	if s.size == 1 {
		close(all)
	}
	// stop ends the listener and the connections still open (strays).
	stop := func() {
		ln.Close()
		mu.Lock()
		closing = true
		for c := range open {
			c.Close()
		}
		mu.Unlock()
		conns.Wait()
	}
	select {
	case <-all:
		stop()
		return id, nil
	case <-ctx.Done():
		stop()
		mu.Lock()
		defer mu.Unlock()
		what := s.missing(came)
		if len(refused) > 0 {
			what += "; refused: " + strings.Join(refused, "; ")
		}
		return none, s.fail(ctx, what)
	}
}

// dial is rank k > 0 of a TCP rendezvous: connect to rank 0 until it
// answers, retrying while it is not there yet.
func (s *share) dial(ctx context.Context) (nccl.UniqueID, error) {
	var (
		id   nccl.UniqueID
		last error
	)
	err := poll(ctx, func() (bool, error) {
		var refusal string
		id, refusal, last = s.ask(ctx)
		if refusal != "" && refusal != "run" { // another run's rank 0 may still be there: retry
			return false, fmt.Errorf("launch: rendezvous %s: rank 0 refused rank %d: %w", s.rv, s.rank, last)
		}
		return last == nil, nil
	})
	if err != nil && ctx.Err() != nil {
		return id, s.fail(ctx, fmt.Sprintf("no id from rank 0 (last try: %v)", last))
	}
	return id, err
}

// ask makes one exchange with rank 0; refused is the code of an answer
// that refused this rank (run, size or rank; the error is the reason).
func (s *share) ask(ctx context.Context) (id nccl.UniqueID, refused string, err error) {
	d := net.Dialer{Timeout: time.Second}
	c, err := d.DialContext(ctx, "tcp", s.rv.addr)
	if err != nil {
		return id, "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(connTimeout))
	if _, err := c.Write([]byte(hello(s.run, s.rank, s.size))); err != nil {
		return id, "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return id, "", fmt.Errorf("no answer: %w", err)
	}
	rest, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), protocol+" ")
	switch {
	case !ok:
		return id, "", fmt.Errorf("an answer that is not graphnb's: %q", abbreviate(line))
	case strings.HasPrefix(rest, "ok "):
		id, err = nccl.ParseUniqueID(strings.TrimPrefix(rest, "ok "))
		return id, "", err
	case strings.HasPrefix(rest, "refused "):
		code, reason, _ := strings.Cut(strings.TrimPrefix(rest, "refused "), " ")
		return id, code, errors.New(reason)
	}
	return id, "", fmt.Errorf("an unknown answer: %q", abbreviate(line))
}

func abbreviate(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// splitHostPort splits HOST:PORT and checks the port.
func splitHostPort(addr string) (string, string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", "", err
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", "", fmt.Errorf("port %q is not a number in 1..65535", port)
	}
	if host == "" {
		return "", "", errors.New("no host (rank 0's host name or address)")
	}
	return host, port, nil
}
