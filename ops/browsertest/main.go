// Command browsertest checks graphnb in a real browser: it starts Debian's
// classic Jupyter Notebook server, opens a notebook that uses the graphnb
// kernel in headless Chromium, runs a cell that draws a chart, and checks
// that the chart's <img> arrived and decoded. It saves a screenshot.
//
// Usage (ops/kernel-tests.sh runs it):
//
//	browsertest -data JUPYTER_DATA_DIR -out DIR [-chromium /usr/bin/chromium] [-timeout 120s]
//
// JUPYTER_DATA_DIR must hold the graphnb kernelspec (graphnb install).
// Exit status 0 means the chart was shown; anything else prints why.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// chartCell draws a chart with graphnb's plots package: the cell a user
// would write.
const chartCell = `xs := []float64{1 << 10, 1 << 12, 1 << 14}
c := plots.New("browser test", "vertices", "GTEPS")
c.Log2X = true
c.Line("bfs", xs, []float64{1, 3, 2})`

func main() {
	data := flag.String("data", "", "Jupyter data directory holding the graphnb kernelspec")
	out := flag.String("out", "out/browser", "directory for the screenshot and the server log")
	chromium := flag.String("chromium", "/usr/bin/chromium", "Chromium executable")
	python := flag.String("python", "/usr/bin/python3", "Python with Debian's Jupyter")
	timeout := flag.Duration("timeout", 2*time.Minute, "give up after this long")
	flag.Parse()
	if *data == "" {
		fmt.Fprintln(os.Stderr, "browsertest: -data JUPYTER_DATA_DIR is required")
		os.Exit(2)
	}
	if err := run(*data, *out, *chromium, *python, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "browsertest: FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("browsertest: ok: the chart was drawn in Chromium; screenshot in", filepath.Join(*out, "screenshot.png"))
}

func run(data, out, chromium, python string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	nbDir, err := os.MkdirTemp("", "graphnb-browser-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(nbDir)
	if err := writeNotebook(filepath.Join(nbDir, "chart.ipynb")); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	token := fmt.Sprintf("gnb%d", time.Now().UnixNano())
	logFile, err := os.Create(filepath.Join(out, "notebook-server.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	server := exec.CommandContext(ctx, python, "-m", "notebook", "--no-browser", "--allow-root",
		fmt.Sprintf("--port=%d", port), "--ip=127.0.0.1", "--NotebookApp.token="+token,
		"--NotebookApp.notebook_dir="+nbDir)
	server.Env = append(os.Environ(), "JUPYTER_DATA_DIR="+data, "JUPYTER_CONFIG_DIR="+filepath.Join(nbDir, ".config"))
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
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(nbDir, ".chromium")), chromedp.WindowSize(1280, 900))
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()

	if err := chromedp.Do(browser, chromedp.Navigate(base+"/notebooks/chart.ipynb?token="+token)); err != nil {
		return fmt.Errorf("opening the notebook: %w", err)
	}
	// wait for the kernel to be connected and idle, then run the cell
	if _, err := chromedp.Run(browser, chromedp.Poll[bool](`!!(window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel &&
		Jupyter.notebook.kernel.is_connected() && !Jupyter.notebook.kernel_busy)`,
		chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		return fmt.Errorf("the graphnb kernel did not connect (server log: %s): %w", logFile.Name(), err)
	}
	kernelName, err := chromedp.Run(browser, chromedp.Evaluate[string](`Jupyter.notebook.kernel.name`))
	if err != nil {
		return err
	}
	if _, err := chromedp.Run(browser, chromedp.Evaluate[bool](`Jupyter.notebook.execute_all_cells(); true`)); err != nil {
		return fmt.Errorf("running the cell: %w", err)
	}
	imgWidth, err := chromedp.Run(browser, chromedp.Poll[int](`(function(){
		const i = document.querySelector("div.output_subarea img");
		return i && i.complete && i.naturalWidth > 0 ? i.naturalWidth : 0 })()`,
		chromedp.WithPollingTimeout(60*time.Second)))
	if err != nil {
		errText, _ := chromedp.Run(browser, chromedp.Evaluate[string](`Array.from(document.querySelectorAll(".output_error, .output_stderr, .output_text")).map(e => e.innerText).join("\n")`))
		if errText != "" {
			return fmt.Errorf("no chart appeared (%w); the notebook shows: %s", err, errText)
		}
		return fmt.Errorf("no chart appeared (server log: %s): %w", logFile.Name(), err)
	}
	shot, err := chromedp.Run(browser, chromedp.FullScreenshot(100)) // quality 100: PNG
	if err != nil {
		return fmt.Errorf("taking the screenshot: %w", err)
	}
	if kernelName != "graphnb" {
		return fmt.Errorf("the notebook ran kernel %q, want graphnb", kernelName)
	}
	if err := os.WriteFile(filepath.Join(out, "screenshot.png"), shot, 0o644); err != nil {
		return err
	}
	fmt.Printf("browsertest: kernel %s drew a chart %d px wide\n", kernelName, imgWidth)
	return nil
}

// writeNotebook writes an nbformat 4 notebook with the chart cell.
func writeNotebook(path string) error {
	nb := map[string]any{
		"nbformat": 4, "nbformat_minor": 5,
		"metadata": map[string]any{
			"kernelspec":    map[string]any{"name": "graphnb", "display_name": "Go (graphnb)", "language": "go"},
			"language_info": map[string]any{"name": "go"},
		},
		"cells": []any{map[string]any{
			"cell_type": "code", "id": "chart", "metadata": map[string]any{}, "execution_count": nil,
			"outputs": []any{}, "source": strings.SplitAfter(chartCell, "\n"),
		}},
	}
	b, err := json.MarshalIndent(nb, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
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
