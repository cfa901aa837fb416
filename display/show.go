package display

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"os"
	"sort"
	"strings"
)

// Where console output goes when no sink is installed; read at each call
// so a redirected os.Stdout (an Example, the kernel's capture) is honoured.
// Tests replace them.
var (
	consoleOut = func() io.Writer { return os.Stdout }
	consoleErr = func() io.Writer { return os.Stderr }
)

// publish sends b to the current sink, or prints its text form to
// standard output when there is none.
func publish(b Bundle, id string, update bool) {
	if s := CurrentSink(); s != nil {
		s.Display(b, nil, id, update)
		return
	}
	fmt.Fprintln(consoleOut(), consoleText(b))
}

// complain reports a display call's bad input on standard error (a red
// stream in Jupyter) instead of displaying it.
func complain(format string, args ...any) {
	fmt.Fprintf(consoleErr(), format+"\n", args...)
}

// consoleText is what a console shows for b: its text/plain form, else
// the source of a text format (Markdown, LaTeX, HTML), else a placeholder
// such as "[image/png, 1.2 KiB]".
func consoleText(b Bundle) string {
	for _, k := range []string{"text/plain", "text/markdown", "text/latex", "text/html"} {
		if s, ok := b[k].(string); ok {
			return s
		}
	}
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		n := -1
		switch x := b[k].(type) {
		case string:
			n = len(x)
			if strings.HasPrefix(k, "image/") && !strings.HasPrefix(k, "image/svg") {
				n = decodedLen(x)
			}
		case []byte:
			n = len(x)
		}
		if n >= 0 {
			parts[i] = fmt.Sprintf("[%s, %s]", k, byteSize(n))
		} else {
			parts[i] = "[" + k + "]"
		}
	}
	return strings.Join(parts, " ")
}

// decodedLen is the number of bytes a standard base64 string decodes to.
func decodedLen(s string) int {
	n := len(s) / 4 * 3
	switch {
	case strings.HasSuffix(s, "=="):
		n -= 2
	case strings.HasSuffix(s, "="):
		n--
	}
	return n
}

// byteSize renders n bytes with a binary unit.
func byteSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// Show displays v with every MIME type it offers (see Render).
func Show(v any) { publish(render(v), "", false) }

// Text displays s as text/plain.
func Text(s string) { publish(Bundle{"text/plain": s}, "", false) }

// HTML displays s as text/html. Notebook front ends may sanitise it:
// inline styles and plain tags survive, scripts do not.
func HTML(s string) { publish(Bundle{"text/html": s}, "", false) }

// Markdown displays s as text/markdown.
func Markdown(s string) { publish(Bundle{"text/markdown": s}, "", false) }

// SVG displays s, an <svg> document, as image/svg+xml.
func SVG(s string) { publish(Bundle{"image/svg+xml": s}, "", false) }

// LaTeX displays s as text/latex. s is passed as given, so include the
// math delimiters: LaTeX(`$\sum_{v} \deg(v) = 2m$`).
func LaTeX(s string) { publish(Bundle{"text/latex": s}, "", false) }

var (
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
	jpegMagic = []byte{0xff, 0xd8, 0xff}
)

// PNG displays b, the bytes of a PNG file, as image/png. Bytes that do not
// start with the PNG signature are reported on standard error and not
// displayed.
func PNG(b []byte) {
	if !bytes.HasPrefix(b, pngMagic) {
		complain("display.PNG: the %d bytes given are not a PNG file (no PNG signature); use display.JPEG for JPEG data or display.Image for an image.Image", len(b))
		return
	}
	publish(Bundle{"image/png": base64.StdEncoding.EncodeToString(b)}, "", false)
}

// JPEG displays b, the bytes of a JPEG file, as image/jpeg. Bytes that do
// not start with the JPEG marker are reported on standard error and not
// displayed.
func JPEG(b []byte) {
	if !bytes.HasPrefix(b, jpegMagic) {
		complain("display.JPEG: the %d bytes given are not a JPEG file (no SOI marker); use display.PNG for PNG data or display.Image for an image.Image", len(b))
		return
	}
	publish(Bundle{"image/jpeg": base64.StdEncoding.EncodeToString(b)}, "", false)
}

// Image encodes img as PNG and displays it as image/png. An image that
// cannot be encoded is reported on standard error.
func Image(img image.Image) {
	if img == nil {
		complain("display.Image: the image is nil")
		return
	}
	s, err := encodePNG(img)
	if err != nil {
		complain("%v", err)
		return
	}
	publish(Bundle{"image/png": s}, "", false)
}

// JSON displays v as application/json (an expandable tree in JupyterLab)
// and as indented JSON text/plain. v is encoded with encoding/json; pass a
// json.RawMessage to show text that already is JSON (a plain string is
// shown as a JSON string). A value encoding/json cannot encode (a channel,
// a NaN) is reported on standard error and not displayed.
func JSON(v any) {
	b, err := jsonBundle(v)
	if err != nil {
		complain("display.JSON: %v", err)
		return
	}
	publish(b, "", false)
}

// jsonBundle encodes v and decodes it back to plain maps, slices and
// json.Numbers, so any sink can encode the bundle again exactly.
func jsonBundle(v any) (Bundle, error) {
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false) // the text form shows <, > and & as they are
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	raw := bytes.TrimSuffix(enc.Bytes(), []byte("\n"))
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var data any
	if err := dec.Decode(&data); err != nil {
		return nil, err
	}
	var text bytes.Buffer
	if err := json.Indent(&text, raw, "", "  "); err != nil {
		return nil, err
	}
	return Bundle{"application/json": data, "text/plain": text.String()}, nil
}

// Clear clears the current cell's output (clear_output). With wait, the
// front end clears only when new output arrives, which avoids flicker in
// a loop that redraws. With no sink it does nothing.
func Clear(wait bool) {
	if s := CurrentSink(); s != nil {
		s.ClearOutput(wait)
	}
}
