package rewrite

import (
	"go/ast"
	"go/token"
	"reflect"
	"strconv"
)

// Unexported fields and encoders: yaegi builds a cell's struct type with
// reflect.StructOf, which needs exported fields, so it exports skip as
// Xskip — and encoding/json and encoding/xml, which leave unexported
// fields out, write it ({"A":1,"Xskip":2}). The pass tags every unexported
// field of the cells' struct types (not embedded ones, whose exported
// fields the encoders promote) json:"-" xml:"-" for the interpreter, so
// the encoders leave it out as Go's do. Go's checker saw the fields
// untagged; the tag is the interpreter's alone.
func tagUnexportedFields(x *Cell, ps []*Run) error {
	inspect(ps, func(n ast.Node) bool {
		st, ok := n.(*ast.StructType)
		if !ok || st.Fields == nil {
			return true
		}
		for _, f := range st.Fields.List {
			if len(f.Names) == 0 {
				continue // embedded
			}
			unexported := false
			for _, id := range f.Names {
				unexported = unexported || (!ast.IsExported(id.Name) && id.Name != "_")
			}
			if !unexported {
				continue
			}
			old := ""
			if f.Tag != nil {
				if s, err := strconv.Unquote(f.Tag.Value); err == nil {
					old = s
				}
			}
			tag := reflect.StructTag(old)
			if tag.Get("json") == "-" && tag.Get("xml") == "-" {
				continue
			}
			value := `json:"-" xml:"-"`
			if old != "" {
				value += " " + old
			}
			pos := f.Type.End()
			if f.Tag != nil {
				pos = f.Tag.Pos()
			}
			f.Tag = &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(value)}
		}
		return true
	})
	return nil
}
