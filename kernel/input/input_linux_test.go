//go:build linux

package input

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

const waitLimit = 10 * time.Second

// serve starts s.Serve with ask and returns a function that stops it.
func serve(t *testing.T, s *Stdin, ask func(context.Context) (string, error)) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Serve(ctx, ask) }()
	return func() {
		cancel()
		select {
		case <-done:
		case <-time.After(waitLimit):
			t.Fatal("Serve did not return after its context ended")
		}
	}
}

func startStdin(t *testing.T) *Stdin {
	t.Helper()
	var before syscall.Stat_t
	haveBefore := syscall.Fstat(0, &before) == nil
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
		var after syscall.Stat_t
		if haveBefore && (syscall.Fstat(0, &after) != nil || after.Dev != before.Dev || after.Ino != before.Ino) {
			t.Error("Stop did not restore fd 0")
		}
	})
	return s
}

// readResult runs read on a goroutine and returns its result channel.
func readResult(read func() (string, error)) chan [2]any {
	ch := make(chan [2]any, 1)
	go func() {
		s, err := read()
		ch <- [2]any{s, err}
	}()
	return ch
}

func await(t *testing.T, ch chan [2]any) (string, error) {
	t.Helper()
	select {
	case r := <-ch:
		err, _ := r[1].(error)
		return r[0].(string), err
	case <-time.After(waitLimit):
		t.Fatal("the read did not return")
		return "", nil
	}
}

// TestReadsAreAnswered: reads of os.Stdin — bufio, fmt.Fscanln, byte by
// byte — each wait for one question, answered with the line and a newline.
func TestReadsAreAnswered(t *testing.T) {
	s := startStdin(t)
	asked := make(chan int, 10)
	n := 0
	stop := serve(t, s, func(ctx context.Context) (string, error) {
		n++
		asked <- n
		return fmt.Sprintf("answer %d", n), nil
	})
	defer stop()

	line, err := await(t, readResult(func() (string, error) { return bufio.NewReader(os.Stdin).ReadString('\n') }))
	if err != nil || line != "answer 1\n" {
		t.Fatalf("bufio read = %q, %v; want \"answer 1\\n\"", line, err)
	}
	var a, b string
	_, err = await(t, readResult(func() (string, error) {
		_, err := fmt.Fscanln(os.Stdin, &a, &b)
		return "", err
	}))
	if err != nil || a != "answer" || b != "2" {
		t.Fatalf("Fscanln = %q %q, %v; want answer 2", a, b, err)
	}
	if len(asked) != 2 {
		t.Errorf("%d questions for 2 reads", len(asked))
	}
	// Nobody reads: no question.
	time.Sleep(3 * MaxInterval)
	if len(asked) != 2 {
		t.Errorf("%d questions with no reader waiting, want 2", len(asked))
	}
}

// TestRefusedReadGetsEOF: when ask fails the reader gets end of file, and
// the next read waits for the next answer (a fresh pipe).
func TestRefusedReadGetsEOF(t *testing.T) {
	s := startStdin(t)
	refuse := true
	stop := serve(t, s, func(ctx context.Context) (string, error) {
		if refuse {
			refuse = false
			return "", errors.New("no input")
		}
		return "later", nil
	})
	defer stop()
	buf := make([]byte, 100)
	_, err := await(t, readResult(func() (string, error) {
		n, err := os.Stdin.Read(buf)
		return string(buf[:n]), err
	}))
	if err != io.EOF {
		t.Fatalf("refused read: %v, want io.EOF", err)
	}
	line, err := await(t, readResult(func() (string, error) {
		n, err := os.Stdin.Read(buf)
		return string(buf[:n]), err
	}))
	if err != nil || line != "later\n" {
		t.Fatalf("next read = %q, %v; want \"later\\n\"", line, err)
	}
}

// TestInterruptEndsPendingRead: a question still unanswered when Serve's
// context ends (an interrupt) gives the reader end of file.
func TestInterruptEndsPendingRead(t *testing.T) {
	s := startStdin(t)
	asking := make(chan struct{})
	stop := serve(t, s, func(ctx context.Context) (string, error) {
		close(asking)
		<-ctx.Done()
		return "", ctx.Err()
	})
	ch := readResult(func() (string, error) { return bufio.NewReader(os.Stdin).ReadString('\n') })
	select {
	case <-asking:
	case <-time.After(waitLimit):
		t.Fatal("the read was not noticed")
	}
	stop()
	if line, err := await(t, ch); err != io.EOF || line != "" {
		t.Fatalf("interrupted read = %q, %v; want io.EOF", line, err)
	}
}

// TestStartTwice: one Stdin per process.
func TestStartTwice(t *testing.T) {
	startStdin(t)
	if _, err := Start(); !errors.Is(err, ErrActive) {
		t.Fatalf("second Start: %v, want ErrActive", err)
	}
}
