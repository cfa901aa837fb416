// Package notebook reads, writes and executes Jupyter notebooks (nbformat
// 4) with graphnb's interpreter, in process: the machinery behind
// "graphnb exec", the way notebooks get their outputs on a machine with
// neither Jupyter nor Go (the GPU machine gets only the graphnb binary).
//
// # The model
//
// Parse, Read and ReadFile decode and validate nbformat 4.x; a notebook
// of another major version (nbformat 3 has "worksheets") is refused with
// ErrVersion and the nbconvert command that converts it, and a malformed
// file gives a *FormatError with the line and column. Multi-line fields
// stored as lists of lines are joined on reading; Marshal, Write and
// WriteFile write them back as Jupyter does (sorted keys, one space of
// indentation, lists of lines, base64 images as one string, a final
// newline), so a notebook Jupyter wrote reads and writes back byte for
// byte. Fields the model does not know are kept as raw JSON.
//
// # Execution
//
// Execute runs the code cells in order in one session of the kernel's
// interpreter (package session, created as the kernel creates it)
// and records what they show the way Jupyter's nbclient records a
// kernel's messages: streams, display_data (an update of a display id
// rewrites the earlier output in place), execute_result and error
// outputs, execution counts, and the graphnb kernelspec and
// language_info in the metadata. The first failing cell stops the run
// with a *CellError; its error is in the notebook, which is complete
// whatever happens.
//
// Parameters follow papermill's convention: the first code cell tagged
// "parameters" holds the defaults; InjectParameters adds after it a cell
// tagged "injected-parameters" that assigns the overrides, each a Go
// literal or a bare word taken as a string.
package notebook
