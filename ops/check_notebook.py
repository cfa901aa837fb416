"""Checks an executed notebook: no cell failed, and the outputs hold the
MIME types asked for. Usage:

    /usr/bin/python3 ops/check_notebook.py NOTEBOOK.ipynb [MIME ...]

e.g. ops/check_notebook.py out/00-tour.ipynb text/plain image/png
Exits 1 naming the first problem.
"""
import json
import sys


def main(path, wanted):
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    seen = set()
    code_cells = 0
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        code_cells += 1
        if cell.get("execution_count") is None and "".join(cell.get("source", "")).strip():
            sys.exit(f"{path}: code cell {i} was not executed")
        for out in cell.get("outputs", []):
            kind = out.get("output_type")
            if kind == "error":
                sys.exit(f"{path}: cell {i} failed: {out.get('ename')}: {out.get('evalue')}")
            if kind == "stream":
                seen.add("stream/" + out.get("name", ""))
                seen.add("text/plain")
            for mime in out.get("data", {}):
                seen.add(mime)
    if code_cells == 0:
        sys.exit(f"{path}: no code cells")
    missing = [m for m in wanted if m not in seen]
    if missing:
        sys.exit(f"{path}: no output of type {', '.join(missing)} (saw {', '.join(sorted(seen))})")
    print(f"{path}: {code_cells} code cells ran without errors; outputs: {', '.join(sorted(seen))}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
