// Package widgets offers Jupyter widgets to Go cells: sliders, checkboxes,
// drop-downs, buttons, text fields, output areas and boxes that are Go
// values, kept in step with their views in the browser through Jupyter's
// widget messaging protocol over comms (package comm).
//
// A widget renders itself: displaying it (a cell's last expression, or
// display.Show) shows its view, through the MIME type
// application/vnd.jupyter.widget-view+json with a text/plain fallback such
// as IntSlider(value=16, min=10, max=24, step=1, description="scale"):
//
//	scale := widgets.NewIntSlider("scale", 10, 24, 1, 16)
//	scale.OnChange(func(old, new int) { fmt.Println("scale", new) })
//	scale
//
// The controls: NewIntSlider, NewFloatSlider, NewIntRangeSlider,
// NewCheckbox and NewToggleButton (a *Toggle), NewDropdown,
// NewRadioButtons and NewToggleButtons (a *Choice of strings), NewButton,
// NewText, NewLabel and NewHTML (a *Text), NewIntText, NewFloatText,
// NewProgress, NewOutput; and the boxes NewHBox, NewVBox, NewAccordion and
// NewTab. Constructors take the label first, then what the control needs
// (bounds, step, options) and its initial value last; bad bounds or an
// unknown initial option are fixed up and reported on standard error, never
// a panic. SetDisabled, SetDescription and SetContinuousUpdate change the
// rest.
//
// Values go both ways: Value reads, SetValue sets and updates the browser,
// OnChange(func(old, new T)) runs after each change, from the browser or
// SetValue, and a Button's OnClick(func()) on each click. What the browser
// sends is checked: numbers are clamped into min…max (and the corrected
// value sent back), an unknown option or a malformed value is refused with
// a message on standard error, which the kernel shows in the cell's
// output. Callbacks run on the kernel's execution thread, one at a time,
// as the kernel delivers comm messages; a callback that panics is reported
// the same way and the widget keeps working. Once an interrupt is
// requested (package cancel: the kernel's interrupt button while a
// callback runs), the change's remaining callbacks are skipped.
//
// Interact(fn, controls...) calls fn with the controls' values now and
// after every change and shows its result in an Output, replaced in
// place; InteractManual waits for a click on its "Run" button. An Output
// captures what a function displays (Capture swaps the display sink while
// it runs) into its own outputs state, so it renders in both protocols
// and is saved with the notebook's widget state.
//
// Two dialects of the protocol are spoken (see Protocol): protocol 2 as
// ipywidgets 8 speaks it (JupyterLab, Notebook 7, VS Code, Voilà,
// nbconvert), the default, and protocol 1 as ipywidgets 6.0 speaks it to
// jupyter-js-widgets ~2.1.4, the front end of Debian 12's classic
// notebook. The dialect follows what the front end announces: the classic
// notebook opens a comm to "jupyter.widget.version" when it connects to
// the kernel, before any cell runs, which selects protocol 1; an
// ipywidgets 8 front end asking for all states on "jupyter.widget.control"
// selects protocol 2. SetProtocol, or GRAPHNB_WIDGETS=1 or 2 in the
// kernel's environment, fixes the dialect instead. A widget keeps the
// dialect it was made in.
//
// Widgets live until Close (which closes their comms and drops their
// callbacks), CloseAll, or their comm being closed by the front end or by
// the kernel, which releases the widget the same way: the kernel closes
// the comms a cell opened before it runs that cell again, so re-running a
// cell releases the widgets its earlier run made.
//
// Text printed inside Capture (fmt.Println in Interact's fn, or in a
// callback that Capture wraps) lands in the Output as stream outputs:
// the host that captures fds 1 and 2 (the kernel, graphnb exec) hands it
// to the display.Streamer sink Capture installs. Printed outside an
// Output, a callback's text is the kernel's stream output of the comm
// message (the classic notebook shows it under the cell).
package widgets
