"""Runs one notebook with both of graphnb's runners — the Jupyter kernel
(through Debian's nbclient, as nbconvert does) and `graphnb exec` — each
with errors allowed, and checks that every cell shows the same: the same
text on each stream, and the same results (text/plain) and errors (ename,
evalue) in the same order. (The interleaving of stdout and stderr is not
compared: the kernel's capture does not keep it yet — issue 13, case 10.)
It also checks that both save the same widget state in the notebook's
metadata (metadata.widgets, which nbclient records from the kernel's comm
messages and graphnb exec from the cells' comms), comm ids aside.
Exits 1 with the first difference.

    /usr/bin/python3 ops/compare_runners.py bin/graphnb ops/testdata/runners.ipynb
"""
import json
import subprocess
import sys
import tempfile

import nbformat
from nbclient import NotebookClient


def summary(nb):
    cells = []
    for c in nb["cells"]:
        if c["cell_type"] != "code":
            continue
        outs = []
        streams = {}
        for o in c.get("outputs", []):
            t = o["output_type"]
            if t == "stream":
                text = o["text"] if isinstance(o["text"], str) else "".join(o["text"])
                streams[o["name"]] = streams.get(o["name"], "") + text
            elif t in ("execute_result", "display_data"):
                data = o["data"].get("text/plain", "")
                outs.append((t, "", data if isinstance(data, str) else "".join(data)))
            elif t == "error":
                outs.append(("error", o["ename"], o["evalue"]))
        for name in sorted(streams):
            outs.append(("stream", name, streams[name]))
        cells.append(outs)
    return cells


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def widget_state(nb):
    """The saved widget state without the comm ids, which differ from run
    to run: its versions, and its models sorted by their JSON."""
    ws = nb["metadata"].get("widgets", {}).get(WIDGET_STATE)
    if ws is None:
        return None
    models = sorted(json.dumps(m, sort_keys=True) for m in ws["state"].values())
    return ws["version_major"], ws["version_minor"], models


def main():
    graphnb, path = sys.argv[1], sys.argv[2]
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, kernel_name="graphnb", allow_errors=True, timeout=120).execute()
    with tempfile.TemporaryDirectory() as d:
        out = d + "/out.ipynb"
        r = subprocess.run([graphnb, "exec", "-allow-errors", "-timeout", "2m", "-o", out, path], capture_output=True, text=True)
        if r.returncode != 0:
            print("graphnb exec -allow-errors failed:", r.returncode, r.stderr)
            return 1
        with open(out) as f:
            ex = json.load(f)
    kernel, execd = summary(nb), summary(ex)
    if len(kernel) != len(execd):
        print(f"{len(kernel)} code cells under the kernel, {len(execd)} under graphnb exec")
        return 1
    for i, (k, e) in enumerate(zip(kernel, execd)):
        if k != e:
            print(f"cell {i + 1} differs:\n  kernel:       {k}\n  graphnb exec: {e}")
            return 1
    kw, ew = widget_state(nb), widget_state(ex)
    if kw != ew:
        print(f"the saved widget state differs:\n  kernel:       {kw}\n  graphnb exec: {ew}")
        return 1
    widgets = f" and save the same state of {len(kw[2])} widgets" if kw else ""
    print(f"{path}: the kernel and graphnb exec show the same for all {len(kernel)} code cells{widgets}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
