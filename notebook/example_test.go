package notebook_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/graphnb/graphnb/notebook"
)

func ExampleExecute() {
	nb := notebook.New()
	nb.Cells = append(nb.Cells,
		notebook.NewMarkdown("# Squares"),
		notebook.NewCode("n := 4"),
		notebook.NewCode("n * n"),
	)
	_ = nb.Cells[1].Metadata.Set("tags", []string{notebook.ParametersTag})
	err := notebook.Execute(context.Background(), nb, notebook.ExecOptions{
		Params: []notebook.Param{{Name: "n", Value: "12"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range nb.Cells {
		if c.Type != notebook.Code {
			continue
		}
		fmt.Printf("In [%d]: %s\n", c.ExecutionCount, strings.ReplaceAll(c.Source, "\n", "; "))
		for _, o := range c.Outputs {
			fmt.Printf("  %s: %v\n", o.Type, o.Data["text/plain"])
		}
	}
	// Output:
	// In [1]: n := 4
	// In [2]: // Parameters injected by graphnb exec; n = 12
	// In [3]: n * n
	//   execute_result: 144
}

func ExampleParam_Literal() {
	for _, v := range []string{"20", "1.5", "true", `"quoted"`, "rmat:16"} {
		fmt.Println(notebook.Param{Name: "x", Value: v}.Literal())
	}
	// Output:
	// 20
	// 1.5
	// true
	// "quoted"
	// "rmat:16"
}

func ExampleParse() {
	nb, err := notebook.Parse([]byte(`{"nbformat": 3, "nbformat_minor": 0, "worksheets": []}`))
	fmt.Println(nb, err)
	// Output:
	// <nil> line 1 column 14: notebook: nbformat 3: graphnb reads nbformat 4 notebooks only; convert it first with "jupyter nbconvert --to notebook --nbformat 4 FILE"
}
