package cancel

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestRequestAndClear(t *testing.T) {
	defer Clear()
	if err := Check(); err != nil {
		t.Fatalf("Check before Request = %v, want nil", err)
	}
	Request()
	if err := Check(); !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Check after Request = %v, want ErrInterrupted wrapping context.Canceled", err)
	}
	Clear()
	if Requested() {
		t.Fatal("Requested after Clear")
	}
}

func TestBindRequestsOnCancel(t *testing.T) {
	defer Clear()
	ctx, cancelCtx := context.WithCancel(context.Background())
	unbind := Bind(ctx)
	defer unbind()
	cancelCtx()
	deadline := time.Now().Add(time.Second)
	for !Requested() {
		if time.Now().After(deadline) {
			t.Fatal("cancelling the bound context did not request cancellation within 1s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestUnbindStopsRequests(t *testing.T) {
	defer Clear()
	ctx, cancelCtx := context.WithCancel(context.Background())
	Bind(ctx)()
	cancelCtx()
	time.Sleep(10 * time.Millisecond)
	if Requested() {
		t.Fatal("an unbound context still requested cancellation")
	}
}

func TestRecover(t *testing.T) {
	f := func(v any) (err error) {
		defer Recover(&err)
		panic(v)
	}
	wrapped := fmt.Errorf("graph: SortByWeight: %w", ErrInterrupted)
	if err := f(wrapped); err != wrapped {
		t.Fatalf("Recover of an interrupt = %v, want %v", err, wrapped)
	}
	defer func() {
		if r := recover(); r != "other" {
			t.Fatalf("Recover let through %v, want the panic \"other\"", r)
		}
	}()
	_ = f("other")
	t.Fatal("Recover swallowed a panic that is no interrupt")
}
