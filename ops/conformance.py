"""The official Jupyter kernel conformance suite (jupyter_kernel_test) run
against graphnb, with a sample for every test the suite offers.

Run with Debian's Python, which has the suite, once the kernelspec is
installed where JUPYTER_DATA_DIR (or the default data directory) points:

    /usr/bin/python3 ops/conformance.py -v

ops/kernel-tests.sh does exactly that in a throw-away data directory.
"""
import unittest

import jupyter_kernel_test as jkt


class GraphnbKernelTests(jkt.KernelTests):
    kernel_name = "graphnb"
    language_name = "go"
    file_extension = ".go"

    # stdout and stderr, written by interpreted code through the standard library
    code_hello_world = 'fmt.Println("hello, world")'
    code_stderr = 'fmt.Fprintln(os.Stderr, "to stderr")'

    # completion of a package member (replaces the fragment after the dot)
    completion_samples = [
        {"text": "strings.ToUp", "matches": {"ToUpper", "ToUpperSpecial"}},
        {"text": "math.Sqr", "matches": {"Sqrt", "Sqrt2", "SqrtE", "SqrtPi", "SqrtPhi"}},
    ]

    complete_code_samples = ["1", 'fmt.Println("x")', "x := 1", "func f() int { return 1 }", "%time"]
    incomplete_code_samples = ["for i := 0; i < 3; i++ {", "func f() {", "x := []int{1,", "s := `raw"]
    invalid_code_samples = ["x := 1)", "}", "a := 1 @ 2"]

    # %doc SYMBOL shows Go documentation in the pager
    code_page_something = "%doc strings.Split"

    code_generate_error = 'panic("boom")'

    code_execute_result = [
        {"code": "1+1", "result": "2"},
        {"code": '"go" + "pher"', "result": '"gopher"'},
        {"code": "x := 6\nx * 7", "result": "42"},
        {"code": "[]int{1, 2, 3}", "result": "[1 2 3]"},
    ]

    code_display_data = [
        {"code": 'display.HTML("<b>bold</b>")', "mime": "text/html"},
        {"code": 'display.Markdown("*emphasis*")', "mime": "text/markdown"},
        {"code": 'display.SVG(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`)', "mime": "image/svg+xml"},
        {"code": "display.Image(image.NewRGBA(image.Rect(0, 0, 4, 4)))", "mime": "image/png"},
        {"code": 'display.LaTeX("$x^2$")', "mime": "text/latex"},
        {"code": 'display.JSON(map[string]int{"a": 1})', "mime": "application/json"},
    ]

    code_history_pattern = "1+1"
    supported_history_operations = ("tail", "range", "search")

    code_inspect_sample = "strings.Split"

    code_clear_output = "display.Clear(false)"


if __name__ == "__main__":
    unittest.main()
