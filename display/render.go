package display

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"reflect"
	"strings"
	"sync/atomic"
)

// Render returns every MIME type v offers, always with "text/plain":
//
//   - text/plain is v's Error() or String() when it has one, a string
//     (any type of kind string) quoted as by %q, "nil" for nil, and %v
//     otherwise;
//   - text/html, text/markdown, image/svg+xml and image/png come from
//     HTMLer, Markdowner, SVGer and PNGer (the PNG bytes base64-encoded);
//   - an image.Image with no PNG method is encoded as image/png;
//   - a MIMEBundler's types are added last and win over the above
//     ([]byte data under an image/ type other than SVG is base64-encoded);
//     text/plain is still added when its bundle lacks one.
//
// A render method that panics (a nil receiver, say) is skipped: its MIME
// type is left out and the others remain, so a broken renderer never takes
// the cell down. Render sees compiled Go values only: values of types
// declared in a cell reach it without their methods, and the kernel
// session probes those itself.
func Render(v any) Bundle {
	b := Bundle{}
	if v == nil {
		b["text/plain"] = "nil"
		return b
	}
	if h, ok := v.(HTMLer); ok {
		if s, ok := call(h.HTML); ok {
			b["text/html"] = s
		}
	}
	if m, ok := v.(Markdowner); ok {
		if s, ok := call(m.Markdown); ok {
			b["text/markdown"] = s
		}
	}
	if s, ok := v.(SVGer); ok {
		if x, ok := call(s.SVG); ok {
			b["image/svg+xml"] = x
		}
	}
	if p, ok := v.(PNGer); ok {
		if x, ok := call(p.PNG); ok && x != nil {
			b["image/png"] = base64.StdEncoding.EncodeToString(x)
		}
	}
	if img, ok := v.(image.Image); ok && b["image/png"] == nil {
		if x, err := encodePNG(img); err == nil {
			b["image/png"] = x
		}
	}
	if m, ok := v.(MIMEBundler); ok {
		if mb, ok := call(m.MIMEBundle); ok {
			for k, x := range mb {
				b[k] = normalize(k, x)
			}
		}
	}
	if _, ok := b["text/plain"]; !ok {
		b["text/plain"] = plain(v)
	}
	return b
}

// renderer is the function Show, NewDisplay and Handle.Update render
// with (see SetRenderer).
var renderer atomic.Pointer[func(any) Bundle]

// SetRenderer installs f in place of Render for Show, NewDisplay and
// Handle.Update, and returns the one it replaces (nil: Render). The kernel
// session installs one that also renders values of types declared in
// cells, whose methods Render cannot see; it should fall back to Render
// for compiled values. A nil f restores Render.
func SetRenderer(f func(v any) Bundle) (previous func(v any) Bundle) {
	var old *func(any) Bundle
	if f == nil {
		old = renderer.Swap(nil)
	} else {
		old = renderer.Swap(&f)
	}
	if old == nil {
		return nil
	}
	return *old
}

// render is the installed renderer, Render by default.
func render(v any) Bundle {
	if f := renderer.Load(); f != nil {
		return (*f)(v)
	}
	return Render(v)
}

// call runs a render method, reporting false if it panicked.
func call[T any](f func() T) (r T, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return f(), true
}

// plain is the text/plain form of a non-nil value (see Render).
func plain(v any) string {
	switch x := v.(type) {
	case error, fmt.Stringer:
		// fmt calls Error or String and turns a panic (such as a nil
		// receiver) into a readable marker.
		return fmt.Sprint(x)
	}
	if reflect.TypeOf(v).Kind() == reflect.String {
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprintf("%v", v)
}

// normalize converts raw image bytes from a MIMEBundle to base64, as a
// Bundle carries them.
func normalize(mime string, x any) any {
	if raw, ok := x.([]byte); ok && strings.HasPrefix(mime, "image/") && !strings.HasPrefix(mime, "image/svg") {
		return base64.StdEncoding.EncodeToString(raw)
	}
	return x
}

// encodePNG returns the base64 PNG encoding of img; an image that
// panics while being read (a nil *image.RGBA, say) is an error.
func encodePNG(img image.Image) (s string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("display: cannot encode %T as PNG: %v", img, r)
		}
	}()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", fmt.Errorf("display: cannot encode %T as PNG: %w", img, err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}
