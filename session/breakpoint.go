package session

// breakpointMessage is the panic of runtime.Breakpoint in a cell.
const breakpointMessage = "runtime.Breakpoint: a breakpoint trap (SIGTRAP) would kill the kernel; in a cell it panics instead"

// breakpoint replaces runtime.Breakpoint for cells: Go's executes a
// breakpoint instruction, which kills a process that no debugger
// traces, the kernel with the cell's variables. Go test programs call it
// to stop on a failed self-check; a panic says the same and the session
// survives.
func breakpoint() {
	panic(breakpointMessage)
}
