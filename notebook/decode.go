package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Errors of reading and validating, wrapped in a *FormatError.
var (
	// ErrSyntax: the file is not JSON.
	ErrSyntax = errors.New("not valid JSON")
	// ErrVersion: the file is a notebook of another major version.
	ErrVersion = errors.New("unsupported nbformat version")
	// ErrInvalid: the JSON is not an nbformat 4 notebook.
	ErrInvalid = errors.New("not a valid nbformat 4 notebook")
)

// FormatError is a notebook that cannot be read or written: the file, the
// position (line and byte column, 1-based, when known), the element
// ("cell 4 (id 7770828d), output 2") and what is wrong. It wraps ErrSyntax,
// ErrVersion or ErrInvalid.
type FormatError struct {
	File         string
	Line, Column int
	Where        string
	Msg          string
	Err          error
}

func (e *FormatError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d column %d: ", e.Line, e.Column)
	}
	b.WriteString("notebook: ")
	if e.Where != "" {
		b.WriteString(e.Where + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *FormatError) Unwrap() error { return e.Err }

// ReadFile reads and validates the notebook in the named file; errors
// name the file and, where they can, the line and column.
func ReadFile(name string) (*Notebook, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("notebook: %w", err)
	}
	nb, err := Parse(data)
	var fe *FormatError
	if errors.As(err, &fe) {
		fe.File = name
	}
	return nb, err
}

// Read reads and validates a notebook.
func Read(r io.Reader) (*Notebook, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("notebook: %w", err)
	}
	return Parse(data)
}

// Parse decodes and validates an nbformat 4 notebook. Multi-line fields
// stored as lists of lines are joined. Errors are *FormatError values.
func Parse(data []byte) (*Notebook, error) {
	p := &decoder{data: data}
	nb, err := p.notebook()
	if err != nil {
		return nil, err
	}
	if err := nb.Validate(); err != nil {
		return nil, err
	}
	return nb, nil
}

// A jval is a JSON value and its byte offset in the file.
type jval struct {
	raw json.RawMessage
	off int
}

type decoder struct{ data []byte }

// pos returns the 1-based line and byte column of offset off.
func (p *decoder) pos(off int) (line, col int) {
	off = min(max(off, 0), len(p.data))
	line = 1 + bytes.Count(p.data[:off], []byte("\n"))
	return line, off - bytes.LastIndexByte(p.data[:off], '\n')
}

func (p *decoder) errAt(v jval, where, format string, a ...any) *FormatError {
	line, col := p.pos(v.off)
	return &FormatError{Line: line, Column: col, Where: where, Msg: fmt.Sprintf(format, a...), Err: ErrInvalid}
}

// kind names the JSON type of raw, for messages.
func kind(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// object returns the fields of an object value, in file order.
func (p *decoder) object(v jval, where string) (map[string]jval, []string, error) {
	if kind(v.raw) != "an object" {
		return nil, nil, p.errAt(v, where, "want a JSON object, got %s", kind(v.raw))
	}
	dec := json.NewDecoder(bytes.NewReader(v.raw))
	if _, err := dec.Token(); err != nil {
		return nil, nil, p.errAt(v, where, "%v", err)
	}
	fields := map[string]jval{}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, p.errAt(v, where, "%v", err)
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, p.errAt(v, where, "%v", err)
		}
		if _, dup := fields[key]; !dup {
			keys = append(keys, key)
		}
		fields[key] = jval{raw: raw, off: v.off + int(dec.InputOffset()) - len(raw)}
	}
	return fields, keys, nil
}

// array returns the elements of a list value.
func (p *decoder) array(v jval, where string) ([]jval, error) {
	if kind(v.raw) != "a list" {
		return nil, p.errAt(v, where, "want a list, got %s", kind(v.raw))
	}
	dec := json.NewDecoder(bytes.NewReader(v.raw))
	if _, err := dec.Token(); err != nil {
		return nil, p.errAt(v, where, "%v", err)
	}
	var elems []jval
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, p.errAt(v, where, "%v", err)
		}
		elems = append(elems, jval{raw: raw, off: v.off + int(dec.InputOffset()) - len(raw)})
	}
	return elems, nil
}

func (p *decoder) str(v jval, where string) (string, error) {
	var s string
	if kind(v.raw) != "a string" || json.Unmarshal(v.raw, &s) != nil {
		return "", p.errAt(v, where, "want a string, got %s", kind(v.raw))
	}
	return s, nil
}

// multiline decodes a string or a list of strings (joined).
func (p *decoder) multiline(v jval, where string) (string, error) {
	if kind(v.raw) == "a string" {
		return p.str(v, where)
	}
	var lines []string
	if kind(v.raw) != "a list" || json.Unmarshal(v.raw, &lines) != nil {
		return "", p.errAt(v, where, "want a string or a list of strings, got %s", kind(v.raw))
	}
	return strings.Join(lines, ""), nil
}

// integer decodes a whole number ≥ 0; with nullable, null gives 0.
func (p *decoder) integer(v jval, where string, nullable bool) (int, error) {
	if nullable && kind(v.raw) == "null" {
		return 0, nil
	}
	n, err := strconv.Atoi(string(v.raw))
	if err != nil || n < 0 {
		want := "a whole number ≥ 0"
		if nullable {
			want += " or null"
		}
		return 0, p.errAt(v, where, "want %s, got %s", want, string(v.raw))
	}
	return n, nil
}

func (p *decoder) metadata(v jval, where string) (Metadata, error) {
	fields, _, err := p.object(v, where)
	if err != nil {
		return nil, err
	}
	m := Metadata{}
	for k, f := range fields {
		m[k] = f.raw
	}
	return m, nil
}

// extra collects the fields not in known.
func extra(fields map[string]jval, known ...string) map[string]json.RawMessage {
	var x map[string]json.RawMessage
	for k, f := range fields {
		if slices.Contains(known, k) {
			continue
		}
		if x == nil {
			x = map[string]json.RawMessage{}
		}
		x[k] = f.raw
	}
	return x
}

func (p *decoder) notebook() (*Notebook, error) {
	if len(bytes.TrimSpace(p.data)) == 0 {
		return nil, &FormatError{Msg: "the file is empty, not a notebook", Err: ErrSyntax}
	}
	var top json.RawMessage
	if err := json.Unmarshal(p.data, &top); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := p.pos(int(se.Offset) - 1)
			return nil, &FormatError{Line: line, Column: col, Msg: "not valid JSON: " + se.Error(), Err: ErrSyntax}
		}
		return nil, &FormatError{Msg: "not valid JSON: " + err.Error(), Err: ErrSyntax}
	}
	root := jval{raw: bytes.TrimSpace(p.data), off: len(p.data) - len(bytes.TrimLeft(p.data, " \t\r\n"))}
	fields, _, err := p.object(root, "")
	if err != nil {
		err.(*FormatError).Msg = "the file is JSON but not a notebook: " + err.(*FormatError).Msg
		return nil, err
	}
	nb := &Notebook{Metadata: Metadata{}}
	f, ok := fields["nbformat"]
	if !ok {
		return nil, p.errAt(root, "", `no "nbformat" field: this JSON file is not a Jupyter notebook`)
	}
	if nb.NBFormat, err = p.integer(f, "nbformat", false); err != nil {
		return nil, err
	}
	if nb.NBFormat != 4 {
		e := p.errAt(f, "", "nbformat %d: graphnb reads nbformat 4 notebooks only", nb.NBFormat)
		if nb.NBFormat < 4 {
			e.Msg += `; convert it first with "jupyter nbconvert --to notebook --nbformat 4 FILE"`
		}
		e.Err = ErrVersion
		return nil, e
	}
	if f, ok := fields["nbformat_minor"]; !ok {
		return nil, p.errAt(root, "", `no "nbformat_minor" field`)
	} else if nb.NBFormatMinor, err = p.integer(f, "nbformat_minor", false); err != nil {
		return nil, err
	}
	if f, ok := fields["metadata"]; ok {
		if nb.Metadata, err = p.metadata(f, "metadata"); err != nil {
			return nil, err
		}
	}
	f, ok = fields["cells"]
	if !ok {
		return nil, p.errAt(root, "", `no "cells" list`)
	}
	cells, err := p.array(f, "cells")
	if err != nil {
		return nil, err
	}
	nb.Cells = make([]*Cell, 0, len(cells))
	for i, cv := range cells {
		c, err := p.cell(cv, i)
		if err != nil {
			return nil, err
		}
		nb.Cells = append(nb.Cells, c)
	}
	nb.Extra = extra(fields, "nbformat", "nbformat_minor", "metadata", "cells")
	return nb, nil
}

func cellName(i int, id string) string {
	if id != "" {
		return fmt.Sprintf("cell %d (id %s)", i+1, id)
	}
	return fmt.Sprintf("cell %d", i+1)
}

func (p *decoder) cell(v jval, i int) (*Cell, error) {
	where := cellName(i, "")
	fields, _, err := p.object(v, where)
	if err != nil {
		return nil, err
	}
	c := &Cell{Metadata: Metadata{}}
	c.line, c.col = p.pos(v.off)
	if f, ok := fields["id"]; ok {
		if c.ID, err = p.str(f, where+": id"); err != nil {
			return nil, err
		}
		where = cellName(i, c.ID)
	}
	f, ok := fields["cell_type"]
	if !ok {
		return nil, p.errAt(v, where, `no "cell_type"`)
	}
	if c.Type, err = p.str(f, where+": cell_type"); err != nil {
		return nil, err
	}
	if f, ok = fields["source"]; !ok {
		return nil, p.errAt(v, where, `no "source"`)
	}
	if c.Source, err = p.multiline(f, where+": source"); err != nil {
		return nil, err
	}
	if f, ok := fields["metadata"]; ok {
		if c.Metadata, err = p.metadata(f, where+": metadata"); err != nil {
			return nil, err
		}
	}
	known := []string{"id", "cell_type", "source", "metadata"}
	if c.Type == Code {
		known = append(known, "execution_count", "outputs")
		if f, ok := fields["execution_count"]; ok {
			if c.ExecutionCount, err = p.integer(f, where+": execution_count", true); err != nil {
				return nil, err
			}
		}
		c.Outputs = []*Output{}
		if f, ok := fields["outputs"]; ok {
			outs, err := p.array(f, where+": outputs")
			if err != nil {
				return nil, err
			}
			for j, ov := range outs {
				o, err := p.output(ov, fmt.Sprintf("%s, output %d", where, j+1))
				if err != nil {
					return nil, err
				}
				c.Outputs = append(c.Outputs, o)
			}
		}
	}
	c.Extra = extra(fields, known...)
	return c, nil
}

func (p *decoder) output(v jval, where string) (*Output, error) {
	fields, _, err := p.object(v, where)
	if err != nil {
		return nil, err
	}
	o := &Output{}
	o.line, o.col = p.pos(v.off)
	f, ok := fields["output_type"]
	if !ok {
		return nil, p.errAt(v, where, `no "output_type"`)
	}
	if o.Type, err = p.str(f, where+": output_type"); err != nil {
		return nil, err
	}
	// need returns a required field.
	need := func(name string) (jval, error) {
		f, ok := fields[name]
		if !ok {
			return f, p.errAt(v, where, "a %s output needs %q", o.Type, name)
		}
		return f, nil
	}
	var known []string
	switch o.Type {
	case Stream:
		known = []string{"name", "text"}
		if f, err = need("name"); err == nil {
			o.Name, err = p.str(f, where+": name")
		}
		if err == nil {
			if f, err = need("text"); err == nil {
				o.Text, err = p.multiline(f, where+": text")
			}
		}
	case DisplayData, ExecuteResult:
		known = []string{"data", "metadata"}
		if f, err = need("data"); err == nil {
			o.Data, err = p.bundle(f, where+": data")
		}
		if err == nil {
			o.Metadata = Metadata{}
			if f, ok := fields["metadata"]; ok {
				o.Metadata, err = p.metadata(f, where+": metadata")
			}
		}
		if err == nil && o.Type == ExecuteResult {
			known = append(known, "execution_count")
			if f, ok := fields["execution_count"]; ok {
				o.ExecutionCount, err = p.integer(f, where+": execution_count", true)
			}
		}
	case Error:
		known = []string{"ename", "evalue", "traceback"}
		if f, err = need("ename"); err == nil {
			o.EName, err = p.str(f, where+": ename")
		}
		if err == nil {
			if f, err = need("evalue"); err == nil {
				o.EValue, err = p.str(f, where+": evalue")
			}
		}
		if err == nil {
			if f, err = need("traceback"); err == nil {
				if kind(f.raw) != "a list" || json.Unmarshal(f.raw, &o.Traceback) != nil {
					err = p.errAt(f, where+": traceback", "want a list of strings, got %s", kind(f.raw))
				}
			}
		}
	}
	if err != nil {
		return nil, err
	}
	o.Extra = extra(fields, append(known, "output_type")...)
	return o, nil
}

// isJSONMIME reports whether values of mime are JSON values rather than
// (possibly line-split) strings, as nbformat decides.
func isJSONMIME(mime string) bool {
	return mime == "application/json" || strings.HasPrefix(mime, "application/") && strings.HasSuffix(mime, "+json")
}

func (p *decoder) bundle(v jval, where string) (MIMEBundle, error) {
	fields, _, err := p.object(v, where)
	if err != nil {
		return nil, err
	}
	b := MIMEBundle{}
	for mime, f := range fields {
		if isJSONMIME(mime) {
			b[mime] = f.raw
			continue
		}
		switch kind(f.raw) {
		case "a string", "a list":
			if s, err := p.multiline(f, where+": "+mime); err == nil {
				b[mime] = s
				continue
			}
		}
		b[mime] = f.raw
	}
	return b, nil
}
