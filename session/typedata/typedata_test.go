package typedata

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// check type-checks src (a file of package main) with the embedded data.
func check(t *testing.T, src string) error {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "cell.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: Default()}
	_, err = conf.Check("main", fset, []*ast.File{f}, nil)
	return err
}

func TestImportStdlibAndGraphnb(t *testing.T) {
	err := check(t, `package main
import (
	"fmt"
	"strings"
	"time"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/algo/bfs"
)
func main() {
	g, err := gen.RMAT(10, 16, gen.Seed(1))
	if err != nil { panic(err) }
	r, _ := bfs.DirectionOptimizing(g, g.Roots(1, 1)[0], bfs.Options{})
	var d time.Duration = 3 * time.Second
	fmt.Println(strings.ToUpper("x"), r, d)
}`)
	if err != nil {
		t.Fatal(err)
	}
}

func TestRealErrors(t *testing.T) {
	err := check(t, `package main
import "github.com/graphnb/graphnb/graph/gen"
func main() { bad := gen.RMAT(40, 16); _ = bad }`)
	if err == nil {
		t.Fatal("assignment of two results to one variable was accepted")
	}
	want := "assignment mismatch: 1 variable but gen.RMAT returns 2 values"
	if got := err.Error(); !bytes.Contains([]byte(got), []byte(want)) {
		t.Fatalf("error %q does not say %q", got, want)
	}
}

// Packages are canonical: io.Writer seen through fmt and through io is one
// type.
func TestCanonical(t *testing.T) {
	im := NewFrom(embedded)
	fmtPkg, err := im.Import("fmt")
	if err != nil {
		t.Fatal(err)
	}
	ioPkg, err := im.Import("io")
	if err != nil {
		t.Fatal(err)
	}
	fprint := fmtPkg.Scope().Lookup("Fprint").Type().(*types.Signature)
	w := fprint.Params().At(0).Type()
	if w != ioPkg.Scope().Lookup("Writer").Type() {
		t.Fatalf("fmt.Fprint's io.Writer is %v, not io's", w)
	}
	again, _ := im.Import("fmt")
	if again != fmtPkg {
		t.Fatal("a second import returned another package")
	}
}

func TestUnknownPackage(t *testing.T) {
	if _, err := Default().Import("example.com/nothing"); err == nil {
		t.Fatal("an unknown package was imported")
	}
	if Default().Name("math/rand/v2") != "rand" {
		t.Fatalf("Name(math/rand/v2) = %q", Default().Name("math/rand/v2"))
	}
	if len(Default().Paths()) < 100 {
		t.Fatalf("only %d packages", len(Default().Paths()))
	}
}

// TestFresh regenerates the data and compares it with the embedded copy:
// run `go generate ./session/typedata` when it fails.
func TestFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerating takes about 20 s")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no Go toolchain")
	}
	out := filepath.Join(t.TempDir(), "exports.gz")
	cmd := exec.Command("go", "run", "./gen", "-o", out)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("generator: %v", err)
	}
	fresh, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, embedded) {
		t.Fatal("session/typedata/exports.gz is stale: run go generate ./session/typedata and commit it")
	}
}

func BenchmarkImportFmt(b *testing.B) {
	for b.Loop() {
		im := NewFrom(embedded)
		if _, err := im.Import("fmt"); err != nil {
			b.Fatal(err)
		}
	}
}
