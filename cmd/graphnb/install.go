package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// kernelSpec is Jupyter's kernel.json.
type kernelSpec struct {
	Argv          []string       `json:"argv"`
	DisplayName   string         `json:"display_name"`
	Language      string         `json:"language"`
	InterruptMode string         `json:"interrupt_mode"`
	Env           map[string]any `json:"env"`
	Metadata      map[string]any `json:"metadata"`
}

func cmdInstall(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("install", "install [flags]")
	name := fs.String("name", "graphnb", "kernel name (the kernelspec directory)")
	display := fs.String("display-name", "Go (graphnb)", "name shown in Jupyter's kernel menu")
	prefix := fs.String("prefix", "", "install into PREFIX/share/jupyter/kernels (a virtualenv-style location) instead of the user's Jupyter data directory")
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos); err != nil {
		return err
	}
	prefixGiven := false
	fs.Visit(func(fl *flag.Flag) { prefixGiven = prefixGiven || fl.Name == "prefix" })
	if prefixGiven && strings.TrimSpace(*prefix) == "" {
		// install -prefix "$VIRTUAL_ENV" with the variable unset: installing
		// into the user's directory instead would hide the mistake.
		return usagef("install: -prefix is empty (an unset variable, such as $VIRTUAL_ENV outside a virtualenv?); give a directory, or leave -prefix out to install for the user")
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("install: cannot find this program's path: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	root, err := kernelsDir(*prefix)
	if err != nil {
		return err
	}
	dir := filepath.Join(root, *name)
	if err := writeKernelSpec(dir, exe, *display); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "installed kernelspec %q in %s\n", *name, dir)
	return nil
}

// kernelsDir returns the kernels directory Jupyter searches: under
// prefix/share/jupyter with a prefix, else $JUPYTER_DATA_DIR, else the
// user data directory of jupyter_core for this OS.
func kernelsDir(prefix string) (string, error) {
	if prefix != "" {
		abs, err := filepath.Abs(prefix)
		if err != nil {
			return "", fmt.Errorf("install: -prefix %q: %w", prefix, err)
		}
		return filepath.Join(abs, "share", "jupyter", "kernels"), nil
	}
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return filepath.Join(d, "kernels"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("install: no home directory (%v); set JUPYTER_DATA_DIR or use -prefix", err)
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Jupyter", "kernels"), nil
	case "windows":
		if a := os.Getenv("APPDATA"); a != "" {
			return filepath.Join(a, "jupyter", "kernels"), nil
		}
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "jupyter", "kernels"), nil
	}
	return filepath.Join(home, ".local", "share", "jupyter", "kernels"), nil
}

// writeKernelSpec writes kernel.json and the logos into dir.
func writeKernelSpec(dir, exe, displayName string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	spec := kernelSpec{
		Argv:          []string{exe, "kernel", "{connection_file}"},
		DisplayName:   displayName,
		Language:      "go",
		InterruptMode: "message",
		Env:           map[string]any{},
		Metadata:      map[string]any{"debugger": false, "graphnb_version": version},
	}
	js, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return err
	}
	files := map[string][]byte{"kernel.json": append(js, '\n')}
	for _, size := range []int{32, 64} {
		files[fmt.Sprintf("logo-%dx%d.png", size, size)] = logoPNG(size)
	}
	files["logo-svg.svg"] = []byte(logoSVG)
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("install: %w", err)
		}
	}
	return nil
}

// The logo: five vertices on a ring joined as a small graph, white on the
// Go blue.
var (
	logoBlue  = color.RGBA{0x00, 0x7d, 0x9c, 0xff}
	logoEdges = [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}, {0, 2}, {1, 3}}
)

func logoVertex(i int, size float64) (x, y float64) {
	a := -math.Pi/2 + 2*math.Pi*float64(i)/5
	return size/2 + 0.32*size*math.Cos(a), size/2 + 0.32*size*math.Sin(a)
}

// logoPNG draws the logo at size×size pixels.
func logoPNG(size int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	s := float64(size)
	near := func(px, py, ax, ay, bx, by, w float64) bool { // distance to a segment
		dx, dy := bx-ax, by-ay
		t := max(0, min(1, ((px-ax)*dx+(py-ay)*dy)/(dx*dx+dy*dy)))
		return math.Hypot(px-ax-t*dx, py-ay-t*dy) <= w
	}
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			c := logoBlue
			for _, e := range logoEdges {
				ax, ay := logoVertex(e[0], s)
				bx, by := logoVertex(e[1], s)
				if near(px, py, ax, ay, bx, by, s/40+0.4) {
					c = color.RGBA{0xff, 0xff, 0xff, 0xff}
				}
			}
			for i := range 5 {
				vx, vy := logoVertex(i, s)
				if math.Hypot(px-vx, py-vy) <= s/10 {
					c = color.RGBA{0xff, 0xff, 0xff, 0xff}
				}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic("graphnb: encoding the logo: " + err.Error())
	}
	return buf.Bytes()
}

var logoSVG = func() string {
	var b bytes.Buffer
	fmt.Fprint(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="#007d9c"/>`)
	for _, e := range logoEdges {
		ax, ay := logoVertex(e[0], 64)
		bx, by := logoVertex(e[1], 64)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#fff" stroke-width="3"/>`, ax, ay, bx, by)
	}
	for i := range 5 {
		x, y := logoVertex(i, 64)
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="6.4" fill="#fff"/>`, x, y)
	}
	b.WriteString(`</svg>`)
	return b.String()
}()
