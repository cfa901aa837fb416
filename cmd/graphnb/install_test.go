package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstallWritesKernelSpec(t *testing.T) {
	data := t.TempDir()
	t.Setenv("JUPYTER_DATA_DIR", data)
	code, out, stderr := runCLI("install", "-name", "gnbtest", "-display-name", "Go test")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dir := filepath.Join(data, "kernels", "gnbtest")
	if !strings.Contains(out, dir) {
		t.Fatalf("output %q does not name %s", out, dir)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec kernelSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	if len(spec.Argv) != 3 || !filepath.IsAbs(spec.Argv[0]) || spec.Argv[1] != "kernel" || spec.Argv[2] != "{connection_file}" {
		t.Fatalf("argv %q: want [ABSOLUTE-PATH kernel {connection_file}]", spec.Argv)
	}
	if spec.Language != "go" || spec.InterruptMode != "message" || spec.DisplayName != "Go test" || spec.Metadata == nil {
		t.Fatalf("spec %+v", spec)
	}
	for _, logo := range []string{"logo-32x32.png", "logo-64x64.png"} {
		b, err := os.ReadFile(filepath.Join(dir, logo))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", logo, err)
		}
		if want := strings.Split(strings.TrimPrefix(logo, "logo-"), "x")[0]; img.Bounds().Dx() != map[string]int{"32": 32, "64": 64}[want] {
			t.Fatalf("%s is %v", logo, img.Bounds())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "logo-svg.svg")); err != nil {
		t.Fatal(err)
	}
}

func TestKernelsDir(t *testing.T) {
	t.Setenv("JUPYTER_DATA_DIR", "")
	t.Setenv("XDG_DATA_HOME", "/xdg")
	if d, _ := kernelsDir(""); d != "/xdg/jupyter/kernels" {
		t.Fatalf("XDG: %s", d)
	}
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "/home/u")
	if d, _ := kernelsDir(""); d != "/home/u/.local/share/jupyter/kernels" {
		t.Fatalf("home: %s", d)
	}
	t.Setenv("JUPYTER_DATA_DIR", "/jd")
	if d, _ := kernelsDir(""); d != "/jd/kernels" {
		t.Fatalf("JUPYTER_DATA_DIR: %s", d)
	}
	if d, _ := kernelsDir("/venv"); d != "/venv/share/jupyter/kernels" {
		t.Fatalf("prefix: %s", d)
	}
}

func TestInstallRejectsArguments(t *testing.T) {
	if code, _, stderr := runCLI("install", "extra"); code != 2 || !strings.Contains(stderr, "install") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// TestInstallRefusesEmptyPrefix: install -prefix "$VIRTUAL_ENV" with the
// variable unset must not fall back to the user's directory.
func TestInstallRefusesEmptyPrefix(t *testing.T) {
	data := t.TempDir()
	t.Setenv("JUPYTER_DATA_DIR", data) // where a wrong fallback would write
	for _, prefix := range []string{"", "  "} {
		code, stdout, stderr := runCLI("install", "-prefix", prefix)
		if code != 2 || !strings.Contains(stderr, "-prefix is empty") {
			t.Errorf("-prefix %q: exit %d, stdout %q, stderr %q; want exit 2 and a message", prefix, code, stdout, stderr)
		}
	}
	if entries, _ := os.ReadDir(data); len(entries) != 0 {
		t.Errorf("an empty -prefix installed into JUPYTER_DATA_DIR: %v", entries)
	}
}
