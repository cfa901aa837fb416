package notebook

// The nbformat 4 model: notebooks, cells, outputs, metadata. Reading is in
// decode.go, checking in validate.go, writing in encode.go.

import (
	"encoding/json"
	"fmt"
	"slices"
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
