package display

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// promptSink is a fakeSink that answers prompts.
type promptSink struct {
	fakeSink
	asked  []string
	answer string
	err    error
}

func (s *promptSink) Prompt(prompt string, password bool) (string, error) {
	s.asked = append(s.asked, prompt+map[bool]string{true: " (password)", false: ""}[password])
	return s.answer, s.err
}

func TestInputAsksThePrompter(t *testing.T) {
	s := &promptSink{answer: "42"}
	prev := SetSink(s)
	defer SetSink(prev)
	if v, err := Input("n? "); v != "42" || err != nil {
		t.Errorf("Input = %q, %v", v, err)
	}
	if v, err := Password("pw: "); v != "42" || err != nil {
		t.Errorf("Password = %q, %v", v, err)
	}
	if got := strings.Join(s.asked, "|"); got != "n? |pw:  (password)" {
		t.Errorf("asked %q", got)
	}
	s.err = ErrNoInput
	if _, err := Input("x"); !errors.Is(err, ErrNoInput) {
		t.Errorf("Input with no input: %v", err)
	}
}

func TestInputOnTheConsole(t *testing.T) {
	stdout, _ := withConsole(t)
	old := consoleIn
	defer func() { consoleIn = old }()
	in := strings.NewReader("first line\r\nsecond\nlast")
	consoleIn = func() io.Reader { return in }
	for _, want := range []string{"first line", "second", "last"} {
		if v, err := Input("> "); v != want || err != nil {
			t.Errorf("Input = %q, %v; want %q", v, err, want)
		}
	}
	if v, err := Password("> "); v != "" || err != io.EOF {
		t.Errorf("Input at end = %q, %v; want io.EOF", v, err)
	}
	if stdout.String() != "> > > > " {
		t.Errorf("prompts printed: %q", stdout.String())
	}
	// A sink that cannot prompt falls back to the console too.
	withSink(t)
	in = strings.NewReader("typed\n")
	if v, err := Input(""); v != "typed" || err != nil {
		t.Errorf("Input with a plain sink = %q, %v", v, err)
	}
}
