// Command browsertest checks graphnb in a real browser: it starts Debian's
// classic Jupyter Notebook server (notebook 6.4, whose widget front end is
// jupyter-js-widgets 2.1.4: widget protocol 1), opens a notebook that uses
// the graphnb kernel in headless Chromium, runs it, and checks two things:
//
//   - the chart: a cell that draws a chart (package plots) shows it as a
//     decoded <img>;
//   - the widgets: a cell makes an R-MAT graph (-scale) on the CPU and a
//     widgets.Interact over an IntSlider (the first BFS root) and a
//     Checkbox (direction-optimizing or top-down) whose function measures
//     a sweep point — -roots searches, each validated, their mean rate —
//     and returns a chart of the points so far. The test moves
//     the slider (-moves times, a mouse click on its track) and clicks the
//     checkbox (after every second move) through the DOM, and checks that
//     the chart image changed after each and that the text the function
//     printed is in the Interact's Output. Then a new cell prints the
//     values the function was called with, which must be the slider's and
//     checkbox's values in the page, in order. The latency of each change
//     is timed in the page, from the DOM event (the mousedown on the
//     slider, the checkbox's click) to the load of the new chart image;
//     min, median and max are printed per control.
//
// Last, a cell shows -idle-widgets sliders, and the kernel process's CPU
// time (utime+stime of /proc/PID/stat, PID printed by a cell) is read
// over -idle seconds of quiet: the CPU an idle page of widgets costs.
// A screenshot of the notebook before that cell is saved in -out.
//
// Usage (ops/kernel-tests.sh runs it):
//
//	browsertest -data JUPYTER_DATA_DIR -out DIR [-chromium /usr/bin/chromium]
//	    [-python /usr/bin/python3] [-timeout 4m] [-scale 16] [-roots 4] [-moves 6]
//	    [-idle 5s] [-idle-widgets 100]
//
// JUPYTER_DATA_DIR must hold the graphnb kernelspec (graphnb install).
// Exit status 0 means every check passed; anything else prints why.
// Timings are printed, never asserted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"
)

// config is the command line.
type config struct {
	data, out, chromium, python string
	timeout                     time.Duration
	scale, roots, moves         int
	idle                        time.Duration
	idleWidgets                 int
}

func main() {
	var c config
	flag.StringVar(&c.data, "data", "", "Jupyter data directory holding the graphnb kernelspec")
	flag.StringVar(&c.out, "out", "out/browser", "directory for the screenshot and the server log")
	flag.StringVar(&c.chromium, "chromium", "/usr/bin/chromium", "Chromium executable")
	flag.StringVar(&c.python, "python", "/usr/bin/python3", "Python with Debian's Jupyter")
	flag.DurationVar(&c.timeout, "timeout", 4*time.Minute, "give up after this long")
	flag.IntVar(&c.scale, "scale", 16, "R-MAT scale of the graph the Interact's BFS runs on (2^scale vertices)")
	flag.IntVar(&c.roots, "roots", 4, "BFS roots per point: each change runs and validates that many searches")
	flag.IntVar(&c.moves, "moves", 6, "how many times to move the slider (the checkbox is clicked after every second move)")
	flag.DurationVar(&c.idle, "idle", 5*time.Second, "how long to read the kernel's CPU time while the page is idle (0: skip)")
	flag.IntVar(&c.idleWidgets, "idle-widgets", 100, "how many sliders are shown during the idle CPU reading")
	flag.Parse()
	if c.data == "" {
		fmt.Fprintln(os.Stderr, "browsertest: -data JUPYTER_DATA_DIR is required")
		os.Exit(2)
	}
	if c.scale < 6 || c.scale > 26 || c.roots < 1 || c.roots > 64 || c.moves < 2 || c.idleWidgets < 0 {
		fmt.Fprintln(os.Stderr, "browsertest: -scale must be 6..26, -roots 1..64, -moves at least 2, -idle-widgets not negative")
		os.Exit(2)
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "browsertest: FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("browsertest: ok: the chart and the widgets work in Chromium; screenshot in", filepath.Join(c.out, "screenshot.png"))
}

func run(c config) error {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	nbDir, err := os.MkdirTemp("", "graphnb-browser-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(nbDir)
	if err := writeNotebook(filepath.Join(nbDir, "browser.ipynb"), c.scale, c.roots); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	token := fmt.Sprintf("gnb%d", time.Now().UnixNano())
	logFile, err := os.Create(filepath.Join(c.out, "notebook-server.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	server := exec.CommandContext(ctx, c.python, "-m", "notebook", "--no-browser", "--allow-root",
		fmt.Sprintf("--port=%d", port), "--ip=127.0.0.1", "--NotebookApp.token="+token,
		"--NotebookApp.notebook_dir="+nbDir)
	server.Env = append(os.Environ(), "JUPYTER_DATA_DIR="+c.data, "JUPYTER_CONFIG_DIR="+filepath.Join(nbDir, ".config"))
	server.Stdout, server.Stderr = logFile, logFile
	if err := server.Start(); err != nil {
		return fmt.Errorf("starting the notebook server: %w", err)
	}
	defer func() {
		server.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { server.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			server.Process.Kill()
		}
	}()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := waitHTTP(ctx, base+"/api/status?token="+token); err != nil {
		return fmt.Errorf("the notebook server did not come up (see %s): %w", logFile.Name(), err)
	}

	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(c.chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(nbDir, ".chromium")), chromedp.WindowSize(1280, 1000))
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()

	if err := chromedp.Do(browser, chromedp.Navigate(base+"/notebooks/browser.ipynb?token="+token)); err != nil {
		return fmt.Errorf("opening the notebook: %w", err)
	}
	// wait for the kernel to be connected and idle, then run the cells
	if err := waitIdle(browser, 60*time.Second); err != nil {
		return fmt.Errorf("the graphnb kernel did not connect (server log: %s): %w", logFile.Name(), err)
	}
	kernelName, err := chromedp.Run(browser, chromedp.Evaluate[string](`Jupyter.notebook.kernel.name`))
	if err != nil {
		return err
	}
	if kernelName != "graphnb" {
		return fmt.Errorf("the notebook runs kernel %q, want graphnb", kernelName)
	}
	if _, err := chromedp.Run(browser, chromedp.Evaluate[bool](`Jupyter.notebook.execute_all_cells(); true`)); err != nil {
		return fmt.Errorf("running the cells: %w", err)
	}
	if err := checkChart(browser); err != nil {
		return err
	}
	if err := checkWidgets(browser, c); err != nil {
		return err
	}
	shot, err := chromedp.Run(browser, chromedp.FullScreenshot(100)) // quality 100: PNG
	if err != nil {
		return fmt.Errorf("taking the screenshot: %w", err)
	}
	if err := os.WriteFile(filepath.Join(c.out, "screenshot.png"), shot, 0o644); err != nil {
		return err
	}
	if c.idle > 0 {
		return measureIdle(browser, c)
	}
	return nil
}

// waitIdle waits until the notebook's kernel is connected and idle.
func waitIdle(browser context.Context, limit time.Duration) error {
	_, err := chromedp.Run(browser, chromedp.Poll[bool](`!!(window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel &&
		Jupyter.notebook.kernel.is_connected() && !Jupyter.notebook.kernel_busy)`,
		chromedp.WithPollingTimeout(limit)))
	return err
}

// checkChart checks that the chart cell's output holds a decoded image.
func checkChart(browser context.Context) error {
	imgWidth, err := chromedp.Run(browser, chromedp.Poll[int](fmt.Sprintf(`(function(){
		const i = Jupyter.notebook.get_cell(%d).output_area.element[0].querySelector("div.output_subarea img");
		return i && i.complete && i.naturalWidth > 0 ? i.naturalWidth : 0 })()`, chartCellIndex),
		chromedp.WithPollingTimeout(60*time.Second)))
	if err != nil {
		return fmt.Errorf("no chart appeared (%w); the notebook shows: %s", err, pageText(browser))
	}
	fmt.Printf("browsertest: chart: the kernel drew a chart %d px wide\n", imgWidth)
	return nil
}

// pageText is the text of the notebook's outputs and widgets, for error
// messages.
func pageText(browser context.Context) string {
	s, err := chromedp.Run(browser, chromedp.Evaluate[string](`(function(){
		const n = document.querySelector("#notebook-container");
		return n ? n.innerText : "(no notebook)" })()`))
	if err != nil {
		return "(cannot read the page: " + err.Error() + ")"
	}
	return s
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitHTTP(ctx context.Context, url string) error {
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = errors.New(resp.Status)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%v (last attempt: %v)", ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
