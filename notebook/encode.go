package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Marshal encodes the notebook as Jupyter writes it: keys sorted, one
// space of indentation per level, multi-line text as lists of lines
// (source, stream text, text/* and SVG data; base64 images as one string),
// a final newline. It validates the notebook first.
func (nb *Notebook) Marshal() ([]byte, error) {
	if err := nb.Validate(); err != nil {
		return nil, err
	}
	top := map[string]any{}
	for k, v := range nb.Extra {
		top[k] = v
	}
	cells := make([]any, len(nb.Cells))
	for i, c := range nb.Cells {
		cells[i] = c.jsonObject()
	}
	top["cells"] = cells
	top["metadata"] = orEmpty(nb.Metadata)
	top["nbformat"] = nb.NBFormat
	top["nbformat_minor"] = nb.NBFormatMinor
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(top); err != nil {
		return nil, &FormatError{Msg: "cannot encode: " + err.Error(), Err: ErrInvalid}
	}
	return buf.Bytes(), nil // Encode ends with a newline
}

// Write writes the notebook (see Marshal).
func (nb *Notebook) Write(w io.Writer) error {
	b, err := nb.Marshal()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// WriteFile writes the notebook to the named file. A regular file (or
// one to be created) is replaced atomically: the notebook goes into a
// temporary file in the same directory, renamed over the target, which
// keeps its permissions (0644 for a new file); a symbolic link is followed
// and stays a link. Anything else (a device such as /dev/stdout, a pipe)
// is written to directly.
func (nb *Notebook) WriteFile(name string) error {
	b, err := nb.Marshal()
	if err != nil {
		return err
	}
	if target, err := filepath.EvalSymlinks(name); err == nil {
		name = target
	}
	perm := os.FileMode(0o644)
	if fi, err := os.Stat(name); err == nil {
		if !fi.Mode().IsRegular() {
			if err := os.WriteFile(name, b, 0); err != nil {
				return writingErr(name, err)
			}
			return nil
		}
		perm = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return writingErr(name, err)
	}
	defer os.Remove(f.Name()) // fails harmlessly once renamed
	if _, err := f.Write(b); err != nil {
		f.Close()
		return writingErr(name, err)
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return writingErr(name, err)
	}
	if err := f.Close(); err != nil {
		return writingErr(name, err)
	}
	if err := os.Rename(f.Name(), name); err != nil {
		return writingErr(name, err)
	}
	return nil
}

// writingErr reports a failure to write the notebook file name. It is
// written under a temporary name beside name and renamed, so the
// operating system's error names the temporary file; the message names
// name instead.
func writingErr(name string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("notebook: writing %s: %w", name, err)
}

func orEmpty(m Metadata) Metadata {
	if m == nil {
		return Metadata{}
	}
	return m
}

func (c *Cell) jsonObject() map[string]any {
	obj := map[string]any{}
	for k, v := range c.Extra {
		obj[k] = v
	}
	obj["cell_type"] = c.Type
	if c.ID != "" {
		obj["id"] = c.ID
	}
	obj["metadata"] = orEmpty(c.Metadata)
	obj["source"] = SplitLines(c.Source)
	if c.Type == Code {
		obj["execution_count"] = count(c.ExecutionCount)
		outs := make([]any, len(c.Outputs))
		for i, o := range c.Outputs {
			outs[i] = o.jsonObject()
		}
		obj["outputs"] = outs
	}
	return obj
}

// count is an execution count as JSON: null for 0.
func count(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

func (o *Output) jsonObject() map[string]any {
	obj := map[string]any{}
	for k, v := range o.Extra {
		obj[k] = v
	}
	obj["output_type"] = o.Type
	switch o.Type {
	case Stream:
		obj["name"] = o.Name
		obj["text"] = SplitLines(o.Text)
	case DisplayData, ExecuteResult:
		data := map[string]any{}
		for mime, v := range o.Data {
			if s, ok := v.(string); ok && !isJSONMIME(mime) && splitMIME(mime) {
				data[mime] = SplitLines(s)
			} else {
				data[mime] = v
			}
		}
		obj["data"] = data
		obj["metadata"] = orEmpty(o.Metadata)
		if o.Type == ExecuteResult {
			obj["execution_count"] = count(o.ExecutionCount)
		}
	case Error:
		obj["ename"] = o.EName
		obj["evalue"] = o.EValue
		tb := o.Traceback
		if tb == nil {
			tb = []string{}
		}
		obj["traceback"] = tb
	}
	return obj
}

// splitMIME reports whether nbformat stores values of mime as lists of
// lines: text types, SVG and JavaScript (base64 images stay one string).
func splitMIME(mime string) bool {
	return strings.HasPrefix(mime, "text/") || mime == "image/svg+xml" || mime == "application/javascript"
}

// SplitLines splits s into lines that keep their line endings, as
// Python's str.splitlines(True) does (nbformat's on-disk form of
// multi-line text): "a\nb" → ["a\n", "b"]; "" → []. Line boundaries are
// \n, \r, \r\n, \v, \f, \x1c, \x1d, \x1e, U+0085, U+2028 and U+2029.
func SplitLines(s string) []string {
	lines := []string{}
	start := 0
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= 0x80 {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		end := -1
		switch r {
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				size = 2
			}
			end = i + size
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			end = i + size
		}
		i += size
		if end >= 0 {
			lines = append(lines, s[start:end])
			start = end
		}
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// marshalJSON encodes v without HTML escaping.
func marshalJSON(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
