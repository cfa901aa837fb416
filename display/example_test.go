package display_test

import (
	"fmt"
	"sort"

	"github.com/graphnb/graphnb/display"
)

// temperature renders itself as text and as HTML.
type temperature float64

func (t temperature) String() string { return fmt.Sprintf("%.1f °C", float64(t)) }
func (t temperature) HTML() string   { return fmt.Sprintf("<b>%.1f</b>&nbsp;°C", float64(t)) }

func ExampleRender() {
	b := display.Render(temperature(21.5))
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("%s: %v\n", k, b[k])
	}
	fmt.Println(display.Render("a string")["text/plain"])
	// Output:
	// text/html: <b>21.5</b>&nbsp;°C
	// text/plain: 21.5 °C
	// "a string"
}

// With no sink installed (a plain Go program), explicit displays print
// their text form to standard output; in a notebook they become
// display_data.
func ExampleText() {
	display.Text("hello from a cell")
	display.JSON(map[string]int{"vertices": 16, "edges": 40})
	// Output:
	// hello from a cell
	// {
	//   "edges": 40,
	//   "vertices": 16
	// }
}

// A display replaced in place: in a notebook the first output changes;
// in a console each state is printed.
func ExampleNewDisplay() {
	h := display.NewDisplay("level 0")
	for l := 1; l <= 2; l++ {
		h.Update(fmt.Sprintf("level %d", l))
	}
	// Output:
	// "level 0"
	// "level 1"
	// "level 2"
}

// A progress bar fed by a callback that compiled code calls from any
// goroutine. In a console it redraws one line on standard error.
func ExampleNewProgress() {
	p := display.NewProgress("roots", 64)
	defer p.Done()
	report := p.Callback() // func(done, total int64)
	for i := int64(1); i <= 64; i++ {
		// … one search per root …
		report(i, 64)
	}
}
