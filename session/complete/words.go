package complete

// keywords are Go's 25 keywords with a one-line description for Inspect.
var keywords = map[string]string{
	"break":       "break: terminate the innermost (or labelled) for, switch or select.",
	"case":        "case: a clause of a switch or select statement.",
	"chan":        "chan T: the type of a channel carrying values of type T.",
	"const":       "const: declare named constants.",
	"continue":    "continue: start the next iteration of the innermost (or labelled) for loop.",
	"default":     "default: the clause of a switch or select taken when no case matches.",
	"defer":       "defer f(): call f when the surrounding function returns.",
	"else":        "else: the branch of an if statement taken when the condition is false.",
	"fallthrough": "fallthrough: continue with the next case clause of an expression switch.",
	"for":         "for: loop (for init; cond; post {…}, for cond {…}, for {…}, for k, v := range x {…}).",
	"func":        "func: declare a function or method, or write a function literal.",
	"go":          "go f(): run the call f() in a new goroutine.",
	"goto":        "goto L: jump to the statement labelled L in the same function.",
	"if":          "if cond {…} else {…}: conditional execution.",
	"import":      "import: make a package's exported names available (cells import standard and graphnb packages automatically).",
	"interface":   "interface{…}: a type listing methods (and, as a constraint, type terms).",
	"map":         "map[K]V: the type of a hash map from keys K to values V.",
	"package":     "package: names the package a file belongs to (not needed in cells).",
	"range":       "range x: iterate over a slice, array, string, map, channel or (Go 1.22) integer in a for loop.",
	"return":      "return: leave the function, giving its results.",
	"select":      "select {…}: wait on several channel operations at once.",
	"struct":      "struct{…}: a type made of named fields.",
	"switch":      "switch: choose a case by value (switch x {…}) or by type (switch v := x.(type) {…}).",
	"type":        "type: declare a named type or an alias.",
	"var":         "var: declare variables.",
}

// builtin is a predeclared identifier: its declaration as package builtin
// documents it, and one line of description.
type builtin struct{ sig, doc string }

var builtins = map[string]builtin{
	// Functions.
	"append":  {"func append(slice []Type, elems ...Type) []Type", "Appends elements to a slice, growing it if needed, and returns the updated slice."},
	"cap":     {"func cap(v Type) int", "The capacity of a slice, array, pointer to array or channel."},
	"clear":   {"func clear[T ~[]Type | ~map[Type]Type1](t T)", "Deletes all entries of a map, or zeroes all elements of a slice."},
	"close":   {"func close(c chan<- Type)", "Closes a channel; receivers get the zero value once it is drained."},
	"complex": {"func complex(r, i FloatType) ComplexType", "Builds a complex number from real and imaginary parts."},
	"copy":    {"func copy(dst, src []Type) int", "Copies elements from src to dst and returns how many were copied (the smaller length)."},
	"delete":  {"func delete(m map[Type]Type1, key Type)", "Removes the entry with the given key from a map (no-op if absent)."},
	"imag":    {"func imag(c ComplexType) FloatType", "The imaginary part of a complex number."},
	"len":     {"func len(v Type) int", "The length of a string (bytes), slice, array, pointer to array, map (entries) or channel (queued elements)."},
	"make":    {"func make(t Type, size ...IntegerType) Type", "Allocates and initialises a slice, map or channel."},
	"max":     {"func max[T cmp.Ordered](x T, y ...T) T", "The largest of its arguments (Go 1.21)."},
	"min":     {"func min[T cmp.Ordered](x T, y ...T) T", "The smallest of its arguments (Go 1.21)."},
	"new":     {"func new(Type) *Type", "Allocates a zero value of a type and returns a pointer to it."},
	"panic":   {"func panic(v any)", "Stops normal execution of the goroutine; deferred functions run, recover can stop it."},
	"print":   {"func print(args ...Type)", "Writes its arguments to standard error (for bootstrapping; prefer fmt)."},
	"println": {"func println(args ...Type)", "Writes its arguments, space-separated, and a newline to standard error (prefer fmt)."},
	"real":    {"func real(c ComplexType) FloatType", "The real part of a complex number."},
	"recover": {"func recover() any", "Inside a deferred function, stops a panic and returns its value."},
	// Types.
	"any":        {"type any = interface{}", "Alias for the empty interface: any value."},
	"bool":       {"type bool bool", "The set of boolean values, true and false."},
	"byte":       {"type byte = uint8", "Alias for uint8, by convention for byte data."},
	"comparable": {"type comparable interface{ comparable }", "The constraint satisfied by types whose values can be compared with == and !=."},
	"complex64":  {"type complex64 complex64", "Complex numbers with float32 real and imaginary parts."},
	"complex128": {"type complex128 complex128", "Complex numbers with float64 real and imaginary parts."},
	"error":      {"type error interface{ Error() string }", "The conventional interface for an error condition; nil means no error."},
	"float32":    {"type float32 float32", "IEEE 754 32-bit floating-point numbers."},
	"float64":    {"type float64 float64", "IEEE 754 64-bit floating-point numbers."},
	"int":        {"type int int", "Signed integers of the machine word size (64 bits here)."},
	"int8":       {"type int8 int8", "Signed 8-bit integers (-128 to 127)."},
	"int16":      {"type int16 int16", "Signed 16-bit integers (-32768 to 32767)."},
	"int32":      {"type int32 int32", "Signed 32-bit integers (graphnb's vertex ids)."},
	"int64":      {"type int64 int64", "Signed 64-bit integers (graphnb's arc offsets)."},
	"rune":       {"type rune = int32", "Alias for int32, by convention for Unicode code points."},
	"string":     {"type string string", "Immutable sequences of bytes, by convention UTF-8 text."},
	"uint":       {"type uint uint", "Unsigned integers of the machine word size (64 bits here)."},
	"uint8":      {"type uint8 uint8", "Unsigned 8-bit integers (0 to 255)."},
	"uint16":     {"type uint16 uint16", "Unsigned 16-bit integers (0 to 65535)."},
	"uint32":     {"type uint32 uint32", "Unsigned 32-bit integers."},
	"uint64":     {"type uint64 uint64", "Unsigned 64-bit integers."},
	"uintptr":    {"type uintptr uintptr", "Unsigned integers large enough to hold any pointer's bits."},
	// Constants and zero value.
	"true":  {"const true = 0 == 0", "The untyped boolean true."},
	"false": {"const false = 0 != 0", "The untyped boolean false."},
	"iota":  {"const iota = 0", "In a const declaration, the index of the current spec (0, 1, 2, …)."},
	"nil":   {"var nil Type", "The zero value of pointers, channels, funcs, interfaces, maps and slices."},
}

// DefaultMagics are the magics completed after % and described by
// Inspect when the Scope does not implement MagicLister.
var DefaultMagics = map[string]string{
	"%help":  "%help: list the magics and the kernel's Go dialect.",
	"%time":  "%time: report the cell's wall-clock time.",
	"%doc":   "%doc NAME: show the Go documentation of NAME in the pager (also NAME?).",
	"%env":   "%env: show the environment; %env NAME=value sets a variable.",
	"%gpu":   "%gpu: show the GPU devices.",
	"%%cuda": "%%cuda NAME: compile the cell's CUDA C with NVRTC into a module cells can launch.",
}
