package widgets_test

import (
	"fmt"

	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/widgets"
)

// A slider and a checkbox drive a function whose result Interact shows
// in place. In a notebook, the cell's last expression `ui` displays the
// controls and the result; moving the slider reruns the function. Here,
// with no front end, SetValue moves it.
func Example() {
	scale := widgets.NewIntSlider("scale", 10, 24, 1, 16)
	cache := widgets.NewCheckbox("cache", true)
	scale.OnChange(func(old, new int) { fmt.Println("scale", old, "→", new) })
	ui, err := widgets.Interact(func(s int, c bool) string {
		return fmt.Sprintf("scale %d, cache %v", s, c)
	}, scale, cache)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ui.Close()
	scale.SetValue(20)
	out := ui.Children()[2].(*widgets.Output)
	fmt.Println(out.Outputs()[0]["data"].(map[string]any)["text/plain"])
	fmt.Println(scale)
	// Output:
	// scale 16 → 20
	// "scale 20, cache true"
	// IntSlider(value=20, min=10, max=24, step=1, description="scale")
}

// Capture sends what a function displays to an Output instead of the
// cell.
func ExampleOutput_Capture() {
	out := widgets.NewOutput()
	defer out.Close()
	out.Capture(func() { display.Markdown("**done**") })
	for _, o := range out.Outputs() {
		fmt.Println(o["output_type"], o["data"])
	}
	// Output:
	// display_data map[text/markdown:**done**]
}

// A value the front end sends is checked: an unknown option is refused.
func ExampleChoice_SetValue() {
	variant := widgets.NewDropdown("variant", []string{"near-far", "bellman-ford"}, "near-far")
	defer variant.Close()
	fmt.Println(variant.SetValue("dijkstra"))
	fmt.Println(variant.SetValue("bellman-ford"), variant.Value(), variant.Index())
	// Output:
	// widgets: Dropdown "variant": "dijkstra" is not one of the options ["near-far", "bellman-ford"]
	// <nil> bellman-ford 1
}
