// Package display shows rich output in notebooks: MIME bundles, explicit
// display calls, displays updated in place, and progress bars.
//
// A value renders itself when it has one or more of the small methods
// below; packages that want rich output implement them and never import
// the kernel (nor this package). Render collects every MIME type a value
// offers. Explicit calls (HTML, Show, a Progress bar, …) go to the Sink
// the host installed with SetSink: the Jupyter kernel publishes them on
// IOPub, `graphnb exec` writes them into the notebook, and with no sink
// they print their text/plain form to standard output.
//
// The explicit calls are one-liners for a cell: Show(v) (every type v
// offers), Text, HTML, Markdown, SVG, LaTeX, PNG, JPEG, Image (an
// image.Image, sent as PNG), JSON, and Clear (clear_output). NewDisplay
// returns a Handle whose Update replaces that display in place
// (update_display_data). NewProgress returns a Progress bar, drawn as HTML
// and updated in place at most ten times a second; its Callback is a plain
// func(done, total int64) that compiled code calls from any goroutine.
//
// A sink that is also a Streamer takes the text printed to standard
// output and error as well, while it is installed: the hosts that capture
// fds 1 and 2 hand it the text, and Flush (the host's flusher) delivers
// what is pending, so that such a sink is installed and removed at a
// clean boundary (widgets.Output's Capture does).
//
// Input and Password ask the user for a line of text (Python's input and
// getpass): the kernel's sink sends an input_request, and the front end
// shows a text field (hiding a password).
package display

// Bundle maps MIME types to data, as Jupyter's display_data content:
// "text/plain", "text/html", "text/markdown", "image/svg+xml",
// "text/latex" carry strings; "image/png" and "image/jpeg" carry the
// base64 encoding of the image bytes (a string); "application/json"
// carries any JSON-encodable value.
type Bundle map[string]any

// The render interfaces: a value implementing any of them is displayed
// with that MIME type (MIMEBundle supplies several at once and wins).
type (
	// HTMLer renders as text/html.
	HTMLer interface{ HTML() string }
	// Markdowner renders as text/markdown.
	Markdowner interface{ Markdown() string }
	// SVGer renders as image/svg+xml.
	SVGer interface{ SVG() string }
	// PNGer renders as image/png (raw PNG bytes; Render encodes them).
	PNGer interface{ PNG() []byte }
	// MIMEBundler renders as every MIME type of the bundle it returns.
	MIMEBundler interface{ MIMEBundle() map[string]any }
)

// Sink receives what cells display. The kernel installs one per process
// (see SetSink); its methods may be called from any goroutine.
type Sink interface {
	// Display shows data. displayID, when not empty, names the display so
	// later calls with update=true replace it in place
	// (update_display_data); metadata may be nil.
	Display(data Bundle, metadata map[string]any, displayID string, update bool)
	// ClearOutput clears the current cell's output; with wait, only when
	// new output arrives.
	ClearOutput(wait bool)
}
