package display

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Prompter is a Sink that can ask the user for a line of text. The Jupyter
// kernel's sink sends an input_request on the stdin channel and returns
// the input_reply's value; with password set, the front end hides what is
// typed.
type Prompter interface {
	Prompt(prompt string, password bool) (string, error)
}

// ErrNoInput is the error of Input and Password when the host cannot ask:
// the front end does not accept input requests (the execute_request's
// allow_stdin is false, as with nbconvert and nbclient).
var ErrNoInput = errors.New("display: no input: the front end does not accept input requests (allow_stdin is false); give the value in the code instead")

// ErrInputInterrupted is the error of Input and Password when the cell is
// interrupted while the question waits for its answer.
var ErrInputInterrupted = errors.New("display: input interrupted")

// Input shows prompt and returns the line the user answers, without its
// newline — Python's input(). The installed sink asks when it is a
// Prompter (the kernel: the front end shows a text field); otherwise the
// prompt is printed to standard output and a line is read from standard
// input (io.EOF when there is none). The errors wrap ErrNoInput or
// ErrInputInterrupted when the kernel cannot ask or the cell is
// interrupted.
//
// Reading os.Stdin in a cell (fmt.Scanln, bufio.NewReader(os.Stdin)) asks
// too, with no prompt; Input shows one and Password hides the answer.
func Input(prompt string) (string, error) { return ask(prompt, false) }

// Password is Input for a secret (Python's getpass): the front end hides
// what is typed and the answer is not echoed in the notebook. With no
// Prompter sink, it reads a line like Input (a terminal shows it).
func Password(prompt string) (string, error) { return ask(prompt, true) }

func ask(prompt string, password bool) (string, error) {
	if p, ok := CurrentSink().(Prompter); ok {
		return p.Prompt(prompt, password)
	}
	fmt.Fprint(consoleOut(), prompt)
	return readLine(consoleIn())
}

// consoleIn is where Input reads with no Prompter sink (tests replace it).
var consoleIn = func() io.Reader { return os.Stdin }

// readLine reads one line from r a byte at a time (reading more would
// take bytes from later readers of r) and returns it without its line
// ending; io.EOF if r ends before any byte.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	var c [1]byte
	for {
		n, err := r.Read(c[:])
		if n == 1 {
			if c[0] == '\n' {
				return strings.TrimSuffix(b.String(), "\r"), nil
			}
			b.WriteByte(c[0])
			continue
		}
		if err == io.EOF && b.Len() > 0 {
			return b.String(), nil
		}
		if err != nil {
			return b.String(), err
		}
	}
}
