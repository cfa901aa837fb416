package complete_test

import (
	"fmt"

	"github.com/graphnb/graphnb/session/complete"
)

func ExampleIsComplete() {
	for _, code := range []string{
		complete.CompleteSample,
		complete.IncompleteSample,
		complete.InvalidSample,
		"x := 1 +",
		"s := `raw",
	} {
		status, indent := complete.IsComplete(code)
		fmt.Printf("%-24q %s %q\n", code, status, indent)
	}
	// Output:
	// "1"                      complete ""
	// "for i := 0; i < 3; i++ {" incomplete "    "
	// "x := 1)"                invalid ""
	// "x := 1 +"               incomplete "    "
	// "s := `raw"              incomplete ""
}
