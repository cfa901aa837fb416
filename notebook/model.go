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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Cell types.
const (
	Code     = "code"
	Markdown = "markdown"
	Raw      = "raw"
)

// Output types.
const (
	Stream        = "stream"
	DisplayData   = "display_data"
	ExecuteResult = "execute_result"
	Error         = "error"
)

// Notebook is an nbformat 4 notebook. Fields the model does not name are
// kept in Extra (and in the Extra of cells and outputs, and as raw JSON in
// metadata), so reading and writing a notebook loses nothing.
type Notebook struct {
	// NBFormat is the major version, 4; NBFormatMinor the minor one
	// (cells carry ids from 4.5 on).
	NBFormat, NBFormatMinor int
	Metadata                Metadata
	Cells                   []*Cell
	// Extra holds top-level fields other than the four above.
	Extra map[string]json.RawMessage
}

// Metadata is a metadata object: keys to raw JSON values.
type Metadata map[string]json.RawMessage

// Get decodes the value under key into v. It reports false when the key
// is absent, and an error when the value does not decode into v.
func (m Metadata) Get(key string, v any) (bool, error) {
	raw, ok := m[key]
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("notebook: metadata %q: %w", key, err)
	}
	return true, nil
}

// Set stores v, encoded as JSON, under key (creating the map if needed).
// It fails only when v cannot be encoded.
func (m *Metadata) Set(key string, v any) error {
	raw, err := marshalJSON(v)
	if err != nil {
		return fmt.Errorf("notebook: metadata %q: %w", key, err)
	}
	if *m == nil {
		*m = Metadata{}
	}
	(*m)[key] = raw
	return nil
}

// Cell is one cell. Source is the cell's text, joined (nbformat may store
// it as a list of lines).
type Cell struct {
	Type     string // Code, Markdown or Raw
	ID       string // "" when absent (before nbformat 4.5)
	Source   string
	Metadata Metadata
	// ExecutionCount is the cell's "In [n]"; 0 stands for null (not run).
	// Code cells only.
	ExecutionCount int
	// Outputs of a code cell.
	Outputs []*Output
	// Extra holds other fields (attachments, fields of future versions).
	Extra map[string]json.RawMessage

	line, col int // where the cell starts in the file read, for errors
}

// NewCode returns a code cell with the given source and no outputs.
func NewCode(source string) *Cell {
	return &Cell{Type: Code, Source: source, Metadata: Metadata{}, Outputs: []*Output{}}
}

// NewMarkdown returns a Markdown cell.
func NewMarkdown(source string) *Cell {
	return &Cell{Type: Markdown, Source: source, Metadata: Metadata{}}
}

// Tags returns the cell's metadata.tags (nil when there are none or they
// are not a list of strings).
func (c *Cell) Tags() []string {
	var tags []string
	if _, err := c.Metadata.Get("tags", &tags); err != nil {
		return nil
	}
	return tags
}

// HasTag reports whether metadata.tags holds tag.
func (c *Cell) HasTag(tag string) bool { return slices.Contains(c.Tags(), tag) }

// Output is one output of a code cell. Which fields are used depends on
// Type: Stream uses Name ("stdout" or "stderr") and Text; DisplayData uses
// Data and Metadata; ExecuteResult those and ExecutionCount; Error uses
// EName, EValue and Traceback.
type Output struct {
	Type           string
	Name, Text     string
	Data           MIMEBundle
	Metadata       Metadata
	ExecutionCount int // 0 stands for null
	EName, EValue  string
	Traceback      []string
	Extra          map[string]json.RawMessage

	line, col int
}

// MIMEBundle is the data of a display: MIME type to value. Text-like
// types (text/*, image/svg+xml, image/png and other base64 images) hold a
// string, joined if the file stored a list of lines; JSON types
// (application/json, application/*+json) hold their value as read
// (json.RawMessage) or as given (anything encoding/json encodes).
type MIMEBundle map[string]any

// Text returns the string stored under mime.
func (b MIMEBundle) Text(mime string) (string, bool) {
	s, ok := b[mime].(string)
	return s, ok
}

// New returns an empty nbformat 4.5 notebook.
func New() *Notebook {
	return &Notebook{NBFormat: 4, NBFormatMinor: 5, Metadata: Metadata{}, Cells: []*Cell{}}
}

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

// cellIDRE is nbformat 4.5's pattern for cell ids (1 to 64 characters).
var cellIDRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Validate checks what nbformat 4 requires of a notebook held in memory:
// version 4, known cell and output types, well-formed and unique cell
// ids, and a stream name on stream outputs. Parse calls it.
func (nb *Notebook) Validate() error {
	if nb.NBFormat != 4 {
		return &FormatError{Msg: fmt.Sprintf("nbformat %d: graphnb handles nbformat 4 notebooks only", nb.NBFormat), Err: ErrVersion}
	}
	if nb.NBFormatMinor < 0 {
		return &FormatError{Msg: fmt.Sprintf("nbformat_minor %d is negative", nb.NBFormatMinor), Err: ErrInvalid}
	}
	ids := map[string]int{}
	for i, c := range nb.Cells {
		if c == nil {
			return &FormatError{Where: cellName(i, ""), Msg: "nil cell", Err: ErrInvalid}
		}
		bad := func(format string, a ...any) error {
			return &FormatError{Line: c.line, Column: c.col, Where: cellName(i, c.ID), Msg: fmt.Sprintf(format, a...), Err: ErrInvalid}
		}
		switch c.Type {
		case Code, Markdown, Raw:
		default:
			return bad(`unknown cell_type %q (want "code", "markdown" or "raw")`, c.Type)
		}
		if c.ID != "" {
			if !cellIDRE.MatchString(c.ID) {
				return bad("the id %q is not 1 to 64 letters, digits, '-' or '_'", c.ID)
			}
			if j, dup := ids[c.ID]; dup {
				return bad("the id %q is also the id of cell %d; cell ids must be unique", c.ID, j+1)
			}
			ids[c.ID] = i
		}
		if c.ExecutionCount < 0 {
			return bad("negative execution_count %d", c.ExecutionCount)
		}
		if c.Type != Code && len(c.Outputs) > 0 {
			return bad("a %s cell has outputs; only code cells have them", c.Type)
		}
		for j, o := range c.Outputs {
			if o == nil {
				return bad("output %d is nil", j+1)
			}
			badOut := func(format string, a ...any) error {
				e := bad(format, a...).(*FormatError)
				e.Where += fmt.Sprintf(", output %d", j+1)
				if o.line > 0 {
					e.Line, e.Column = o.line, o.col
				}
				return e
			}
			switch o.Type {
			case Stream:
				if o.Name == "" {
					return badOut("a stream output needs a name (stdout or stderr)")
				}
			case DisplayData, ExecuteResult, Error:
			default:
				return badOut(`unknown output_type %q (want "stream", "display_data", "execute_result" or "error")`, o.Type)
			}
		}
	}
	return nil
}

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
				return fmt.Errorf("notebook: %w", err)
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
