package session

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Magics added through Options run, bind variables for later cells, show
// their results and errors, and appear in %help; built-in names cannot be
// replaced.
func TestAddedMagics(t *testing.T) {
	out, errs := newCapture(t), newCapture(t)
	s, err := New(Options{Stdout: out.w, Stderr: errs.w,
		LineMagics: map[string]LineMagic{"now": {Usage: "%now   the time", Run: func(_ context.Context, args string) (any, error) {
			if args == "bad" {
				return nil, MagicError("MagicError", "%now takes no argument")
			}
			return "tick", nil
		}}},
		CellMagics: map[string]CellMagic{"upper": {Usage: "%%upper NAME   NAME becomes the body in capitals", Run: func(_ context.Context, c MagicCell) (MagicResult, error) {
			if c.Args == "" {
				return MagicResult{}, MagicError("MagicError", "%%upper NAME: the name is missing", "cell[1] line 1")
			}
			return MagicResult{Bind: map[string]any{c.Args: strings.ToUpper(c.Body), c.Args + "Line": c.BodyLine}, Show: len(c.Body)}, nil
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if b := mustRun(t, s, "\n%%upper shout\nabc"); text(b) != "3" {
		t.Errorf("%%%%upper shows %q, want 3 (the body's length)", text(b))
	}
	if b := mustRun(t, s, "shout + \"!\""); text(b) != `"ABC!"` {
		t.Errorf("the bound variable is %s, want \"ABC!\"", text(b))
	}
	if b := mustRun(t, s, "shoutLine"); text(b) != "3" {
		t.Errorf("BodyLine = %s, want 3", text(b))
	}
	if _, err := s.Execute(context.Background(), "%%upper\nx", Cell{Count: 1}); err == nil || !strings.Contains(err.Error(), "the name is missing") {
		t.Errorf("a failing cell magic: err = %v", err)
	}
	if _, err := s.Execute(context.Background(), "%now bad\n1", Cell{Count: 1}); err == nil || !strings.Contains(err.Error(), "no argument") {
		t.Errorf("a failing line magic: err = %v", err)
	}
	mustRun(t, s, "%help")
	help := out.sync(t)
	if !strings.Contains(help, "%now   the time") {
		t.Errorf("%%help does not list the added magics:\n%s", help)
	}
	for _, name := range []string{"time", "help", "doc", "env"} {
		_, err := New(Options{LineMagics: map[string]LineMagic{name: {}}})
		if err == nil || !strings.Contains(err.Error(), "built-in") {
			t.Errorf("replacing %%%s: err = %v, want a refusal", name, err)
		}
	}
	var e *Error
	_, err = s.Execute(context.Background(), "%%nothing\nx", Cell{Count: 1})
	if !errors.As(err, &e) || e.Name != "MagicError" {
		t.Errorf("an unknown cell magic: err = %v", err)
	}
}
