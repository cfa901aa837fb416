package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// changeLimit bounds the wait for the chart after one change.
const changeLimit = 30 * time.Second

// watcherJS installs window.__gnb in the page: arm() notes the time and
// the Interact chart's current src; a MutationObserver on the cell notes
// the time at which an image with another src has loaded. Both times are
// the page's performance.now(), so the latency excludes the test's own
// round trips to the browser. A mousedown on the cell arms it first
// (capture phase, before the slider's own handler).
const watcherJS = `(function(){
	const cell = Jupyter.notebook.get_cell(%d).element[0];
	const img = () => cell.querySelector(".widget-area img");
	const st = {t0: 0, t1: 0, src: ""};
	function check() {
		if (!st.t0 || st.t1) return;
		const i = img();
		if (!i || i.src === st.src) return;
		if (i.complete && i.naturalWidth > 0) { st.t1 = performance.now(); return; }
		i.addEventListener("load", () => { if (!st.t1) st.t1 = performance.now(); }, {once: true});
	}
	function arm() { const i = img(); st.src = i ? i.src : ""; st.t0 = performance.now(); st.t1 = 0; }
	new MutationObserver(check).observe(cell, {subtree: true, childList: true, attributes: true});
	cell.addEventListener("mousedown", arm, true);
	window.__gnb = {st: st, arm: arm, cell: cell, check: check};
	return true;
})()`

// checkWidgets moves the Interact's slider and clicks its checkbox (see
// the package comment), checking the chart, the Output's text and the
// values the kernel saw, and prints the latencies.
func checkWidgets(browser context.Context, c config) error {
	cellJS := fmt.Sprintf("Jupyter.notebook.get_cell(%d).element[0]", interactCellIndex)
	if _, err := chromedp.Run(browser, chromedp.Poll[bool](`(function(){
		const i = `+cellJS+`.querySelector(".widget-area img");
		return !!(i && i.complete && i.naturalWidth > 0) })()`, chromedp.WithPollingTimeout(2*time.Minute))); err != nil {
		return fmt.Errorf("no chart in the Interact's Output (%w); the notebook shows: %s", err, pageText(browser))
	}
	if err := waitIdle(browser, time.Minute); err != nil {
		return fmt.Errorf("the kernel stayed busy after the Interact cell: %w", err)
	}
	if _, err := chromedp.Run(browser, chromedp.Evaluate[bool](fmt.Sprintf(watcherJS, interactCellIndex))); err != nil {
		return fmt.Errorf("installing the chart watcher: %w", err)
	}
	want := []string{"0/true"} // the Interact's first call, as the cell ran
	checked := true
	var slider, checkbox []time.Duration
	for m := 1; m <= c.moves; m++ {
		value, lat, err := moveSlider(browser, float64(m)/float64(c.moves+1))
		if err != nil {
			return fmt.Errorf("slider move %d: %w", m, err)
		}
		slider = append(slider, lat)
		want = append(want, fmt.Sprintf("%d/%v", value, checked))
		if err := checkOutputText(browser, checked); err != nil {
			return fmt.Errorf("after slider move %d: %w", m, err)
		}
		fmt.Printf("browsertest: widgets: slider → root %d: new chart in the page after %s\n", value, lat.Round(time.Millisecond))
		if m%2 == 0 {
			now, lat, err := clickCheckbox(browser)
			if err != nil {
				return fmt.Errorf("checkbox click after move %d: %w", m, err)
			}
			if now == checked {
				return fmt.Errorf("the checkbox click after move %d left it %v", m, now)
			}
			checked = now
			checkbox = append(checkbox, lat)
			want = append(want, fmt.Sprintf("%d/%v", value, checked))
			if err := checkOutputText(browser, checked); err != nil {
				return fmt.Errorf("after the checkbox click after move %d: %w", m, err)
			}
			fmt.Printf("browsertest: widgets: checkbox → %v: new chart in the page after %s\n", checked, lat.Round(time.Millisecond))
		}
	}
	out, err := runNewCell(browser, seenCell, "seen ")
	if err != nil {
		return err
	}
	pid, seen, err := parseSeen(out)
	if err != nil {
		return err
	}
	if !slices.Equal(seen, want) {
		return fmt.Errorf("the kernel's function saw %v, the page set %v", seen, want)
	}
	fmt.Printf("browsertest: widgets: the kernel (pid %d) saw every value: %s\n", pid, strings.Join(seen, " "))
	fmt.Printf("browsertest: widgets: slider move → redrawn chart (R-MAT scale %d: %s; a point of %d BFS runs, each validated, on the CPU): %s\n", c.scale, graphSize, c.roots, stats(slider))
	fmt.Printf("browsertest: widgets: checkbox click → redrawn chart: %s\n", stats(checkbox))
	kernelPID = pid
	// The screenshot shows the widgets.
	_, err = chromedp.Run(browser, chromedp.Evaluate[bool](`__gnb.cell.querySelector(".widget-area").scrollIntoView(); true`))
	return err
}

// kernelPID is the kernel's process id and graphSize the Interact's
// graph's size, as a cell printed them.
var (
	kernelPID int
	graphSize string
)

// moveSlider clicks the slider's track at fraction f of its width and
// returns the value the slider then shows and the time from the
// mousedown to the new chart.
func moveSlider(browser context.Context, f float64) (int, time.Duration, error) {
	rect, err := chromedp.Run(browser, chromedp.Evaluate[[]float64](`(function(){
		const r = __gnb.cell.querySelector(".widget-area .ui-slider").getBoundingClientRect();
		return [r.left, r.top, r.width, r.height] })()`))
	if err != nil || len(rect) != 4 {
		return 0, 0, fmt.Errorf("finding the slider: %v", err)
	}
	x, y := rect[0]+f*rect[2], rect[1]+rect[3]/2
	if err := chromedp.Do(browser, chromedp.MouseClickXY(x, y)); err != nil {
		return 0, 0, fmt.Errorf("clicking the slider at (%.0f, %.0f): %w", x, y, err)
	}
	lat, err := waitChart(browser)
	if err != nil {
		return 0, 0, err
	}
	readout, err := chromedp.Run(browser, chromedp.Evaluate[string](`__gnb.cell.querySelector(".widget-area .widget-readout").innerText`))
	if err != nil {
		return 0, 0, fmt.Errorf("reading the slider's value: %w", err)
	}
	v, err := strconv.Atoi(strings.TrimSpace(readout))
	if err != nil {
		return 0, 0, fmt.Errorf("the slider shows %q, not a number", readout)
	}
	return v, lat, nil
}

// clickCheckbox clicks the checkbox and returns its state then and the
// time from the click to the new chart.
func clickCheckbox(browser context.Context) (bool, time.Duration, error) {
	checked, err := chromedp.Run(browser, chromedp.Evaluate[bool](`(function(){
		const b = __gnb.cell.querySelector(".widget-area input[type=checkbox]");
		__gnb.arm();
		b.click();
		return b.checked })()`))
	if err != nil {
		return false, 0, fmt.Errorf("clicking the checkbox: %w", err)
	}
	lat, err := waitChart(browser)
	return checked, lat, err
}

// waitChart waits for the chart armed by the last change and returns
// the latency the page measured.
func waitChart(browser context.Context) (time.Duration, error) {
	ms, err := chromedp.Run(browser, chromedp.Poll[float64](`(function(){ __gnb.check(); const s = __gnb.st; return s.t1 ? s.t1 - s.t0 : 0 })()`,
		chromedp.WithPollingTimeout(changeLimit)))
	if err != nil {
		return 0, fmt.Errorf("the chart did not change within %s (%w); the notebook shows: %s", changeLimit, err, pageText(browser))
	}
	if err := waitIdle(browser, changeLimit); err != nil {
		return 0, fmt.Errorf("the kernel stayed busy: %w", err)
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}

// checkOutputText checks that the Interact's Output shows the text its
// function printed for the last change, once: the output is replaced in
// place, and prints inside the function land in it.
func checkOutputText(browser context.Context, directionOptimizing bool) error {
	text, err := chromedp.Run(browser, chromedp.Evaluate[string](`__gnb.cell.querySelector(".widget-area").innerText`))
	if err != nil {
		return err
	}
	if n := strings.Count(text, "validated:"); n != 1 {
		return fmt.Errorf("the Interact's Output shows %q %d times, want once; the widget area shows: %s", "validated:", n, text)
	}
	variant := "top-down"
	if directionOptimizing {
		variant = "direction-optimizing"
	}
	if !strings.Contains(text, "validated: cpu "+variant) {
		return fmt.Errorf("the Interact's Output does not show the %s run it printed; it shows: %s", variant, text)
	}
	return nil
}

// runNewCell adds a code cell at the bottom with src, runs it, and
// returns its output's text once it contains mark (at once with no mark).
func runNewCell(browser context.Context, src, mark string) (string, error) {
	idx, err := chromedp.Run(browser, chromedp.Evaluate[int](fmt.Sprintf(`(function(){
		const c = Jupyter.notebook.insert_cell_at_bottom("code");
		c.set_text(%q);
		c.execute();
		return Jupyter.notebook.ncells() - 1 })()`, src)))
	if err != nil {
		return "", fmt.Errorf("adding a cell: %w", err)
	}
	if mark == "" {
		return "", nil
	}
	out, err := chromedp.Run(browser, chromedp.Poll[string](fmt.Sprintf(`(function(){
		const t = Jupyter.notebook.get_cell(%d).output_area.element[0].innerText;
		return t.includes(%q) ? t : "" })()`, idx, mark), chromedp.WithPollingTimeout(time.Minute)))
	if err != nil {
		return "", fmt.Errorf("the cell %q showed no %q (%w); the notebook shows: %s", firstLine(src), mark, err, pageText(browser))
	}
	return out, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// parseSeen reads "pid N" and "seen V V …" from the seen cell's output,
// and "graph VERTICES ARCS" into graphSize.
func parseSeen(out string) (int, []string, error) {
	pid := 0
	var seen []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "pid" {
			pid, _ = strconv.Atoi(f[1])
		}
		if len(f) == 3 && f[0] == "graph" {
			graphSize = f[1] + " vertices, " + f[2] + " arcs"
		}
		if len(f) > 0 && f[0] == "seen" {
			seen = f[1:]
		}
	}
	if pid <= 0 || seen == nil {
		return 0, nil, fmt.Errorf("the seen cell printed %q, want lines \"pid N\" and \"seen …\"", out)
	}
	return pid, seen, nil
}

// stats renders min, median and max of ds.
func stats(ds []time.Duration) string {
	if len(ds) == 0 {
		return "no samples"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
	return fmt.Sprintf("min %s, median %s, max %s over %d changes", ms(s[0]), ms(s[len(s)/2]), ms(s[len(s)-1]), len(s))
}

// measureIdle shows c.idleWidgets sliders in a new cell, waits for the
// page and the kernel to settle, and prints the kernel process's CPU
// time over c.idle.
func measureIdle(browser context.Context, c config) error {
	if kernelPID == 0 {
		return fmt.Errorf("the kernel's process id is unknown")
	}
	if c.idleWidgets > 0 {
		if _, err := runNewCell(browser, fmt.Sprintf(manyWidgetsCell, c.idleWidgets), ""); err != nil {
			return err
		}
		if _, err := chromedp.Run(browser, chromedp.Poll[bool](fmt.Sprintf(`(function(){
			const c = Jupyter.notebook.get_cell(Jupyter.notebook.ncells() - 1).element[0];
			return c.querySelectorAll(".widget-area .ui-slider").length >= %d })()`, c.idleWidgets),
			chromedp.WithPollingTimeout(time.Minute))); err != nil {
			return fmt.Errorf("the %d sliders did not show (%w)", c.idleWidgets, err)
		}
	}
	if err := waitIdle(browser, time.Minute); err != nil {
		return err
	}
	time.Sleep(time.Second) // let the last messages settle
	before, err := cpuTime(kernelPID)
	if err != nil {
		return err
	}
	start := time.Now()
	time.Sleep(c.idle)
	after, err := cpuTime(kernelPID)
	if err != nil {
		return err
	}
	wall := time.Since(start)
	used := after - before
	fmt.Printf("browsertest: idle: the kernel used %s of CPU in %s with %d sliders and the Interact shown (%.2f%% of a core)\n",
		used, wall.Round(time.Millisecond), c.idleWidgets, 100*used.Seconds()/wall.Seconds())
	return nil
}

// clockTick is the unit of utime and stime in /proc/PID/stat (USER_HZ,
// 100 on every Linux architecture Go runs on).
const clockTick = 10 * time.Millisecond

// cpuTime returns the user plus system CPU time of process pid so far.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the kernel's CPU time: %w", err)
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is field 3, utime 14 and stime 15.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat has %d fields after the name", pid, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	return time.Duration(utime+stime) * clockTick, nil
}
