package gpu

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBuffersFresh regenerates buffers.go with gen_buffers.go into a
// scratch file and compares it with the committed one, so that an edit of
// either alone fails here rather than drifting.
func TestBuffersFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the generator (seconds)")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to run gen_buffers.go: %v", err)
	}
	fresh := filepath.Join(t.TempDir(), "buffers.go")
	if out, err := exec.Command(goTool, "run", "gen_buffers.go", "-o", fresh).CombinedOutput(); err != nil {
		t.Fatalf("go run gen_buffers.go: %v\n%s", err, out)
	}
	want, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("buffers.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("gpu/buffers.go is stale or edited by hand: run go generate ./gpu")
	}
}
