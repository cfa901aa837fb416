package rewrite

// Passes driven by the type checker's facts: each rewrites a checked cell
// into a form yaegi runs as Go would, or refuses what yaegi cannot run.
// They run right after the check, before the session's other rewrites.

// A pass is one rewrite of a cell, or a refusal of what yaegi cannot run.
type pass struct {
	name string
	// why says, in one line, what yaegi gets wrong without the pass.
	why string
	run func(x *Cell, ps []*Run) error
}

// typedPasses run in this order (Cell.Typed), each in a file
// typed_NAME.go with the exact rewrite in its doc.
var typedPasses = []pass{
	{"main", "yaegi runs a package's func main after every program once it is declared: a cell's main would run at once and after every later cell", renameMain},
	{"language", "yaegi implements Go 1.22: new(expr) is written as Go 1.22; range over a function, generic aliases and self-referring constraints are refused", rewriteNewerLanguage},
	{"available", "yaegi's tables hold Go 1.22's standard library: a newer function would fail to compile, or half a cell would", checkAvailable},
	{"universe", "yaegi fails on a declaration of a predeclared name (const append = 1, var int, type error)", renameUniverse},
	{"shadow", "in the top-level code of a cell, yaegi binds a variable declared in a block (x := 2 in { }, for i := …, if y := …) to the outer variable of that name", renameShadows},
	{"recursive", "yaegi cannot build a type that refers to itself other than through a named struct or an interface (type T []T)", refuseRecursiveTypes},
	{"constants", "yaegi evaluates some constant declarations wrongly (implicit repetition with iota in a typed group)", foldConstants},
	{"commaok", "yaegi cannot compile a comma-ok definition (v, ok := m[k], <-ch, x.(T)) outside a function", wrapTopCommaOk},
	{"topdefs", "yaegi cannot type a top-level definition from an index of a compiled value or a generic call", convertTopDefs},
	{"blankfields", "yaegi cannot declare a struct type with several blank fields (reflect.StructOf: duplicate field X_): all but the first get a name of their own", checkBlankFields},
	{"unsafe", "yaegi computes unsafe.Sizeof, Offsetof and Alignof from its own layout, and lacks unsafe.Slice, SliceData, String and StringData", rewriteUnsafe},
	{"make", "yaegi's make of a channel or slice of a bad size panics with reflect's strings, not Go's runtime errors", checkMakes},
	{"slicearray", "yaegi's conversion of a slice too short for an array panics with reflect's text, not Go's runtime error", checkSliceToArray},
	{"typeswitch", "yaegi takes no case of a cell's type or of a function type in a type switch on an interface{} (the assertion v.(S) is right)", rewriteTypeSwitches},
	{"assertiface", "a failed assertion to a cell's interface panics in yaegi with a message of its own, not Go's runtime error", fixInterfaceAssertions},
	{"compare", "yaegi refuses == and != between operands of different types that Go compares (chan int and <-chan int)", convertComparisons},
	{"pkgvars", "yaegi takes a compiled package's boolean, numeric or string variable for a constant: it refuses to assign it, folds its value", addressCompiledVars},
	{"introspection", "runtime.Caller, Callers, CallersFrames and FuncForPC see the interpreter's frames, not a cell's functions", checkIntrospection},
	{"fresh", "yaegi reuses the variables of a multi-value definition, a select case and a type switch each time the statement runs (&v and closures alias across loop iterations)", freshVars},
	{"params", "yaegi gives an unnamed parameter of a closure the slot of a variable the closure uses: a call overwrites that variable (a panic, or a silent wrong value)", nameLiteralParams},
	{"finalizers", "a yaegi closure holds its function's whole frame: a finalizer literal keeps its object reachable and never runs (it is moved to a function of its own)", hoistFinalizers},
	{"deferclosures", "yaegi deadlocks when a deferred call calls a function literal of the same function (the kernel hangs)", checkDeferredClosures},
	{"ifacestore", "yaegi fails to store -x, ^x or !x (a panic, a nil, or the function silently ends) or a literal of an array, slice or map type with methods into an interface", convertStoresToIface},
	{"print", "yaegi writes print and println to standard output with fmt's formatting; Go writes them to standard error with the runtime's", rewritePrint},
	{"recoverdirect", "yaegi's recover stops a panic when called from a function a deferred function calls; Go's returns nil there", refuseIndirectRecover},
	{"recover", "yaegi's recover returns an interpreted panic's value wrapped in a reflect.Value", rewriteRecover},
	{"reflectmethods", "yaegi builds the cells' types without methods for reflect: Method, MethodByName, NumMethod and Implements do not see them", refuseReflectMethods},
	{"typeargs", "yaegi infers type arguments of generic calls poorly (func(int) string taken for func(int) int)", explicitTypeArgs},
	{"constexprs", "yaegi computes constant expressions with machine arithmetic and types some untyped constants wrongly (1<<100 overflows, val|1<<n takes 1 as an int)", foldConstExprs},
	{"stores", "yaegi stores a call, a receive or a composite literal straight into its variable and drops the assignment (a, b = x+1, f() leaves a unchanged; xs[i] = <-c stores nothing)", parenDirectStores},
	{"arrayptr", "yaegi cannot take &p[i] of a pointer p to an array, and fails on len and cap of a nil one", rewriteArrayPointers},
	{"printderef", "yaegi's print and println of *p, p nil, print <invalid reflect.Value> instead of panicking", evalPrintedDerefs},
	{"initorder", "yaegi initializes package-level variables in the order written, ignoring what the functions they call read", orderVarInits},
	{"methodexprs", "yaegi types method expressions (T.M, (*T).M, I.M) wrongly: too many arguments, or a function of the wrong type", rewriteMethodExprs},
	{"methodvalues", "yaegi binds a method value's receiver when the function is called: no copy, no nil dereference where Go has one", rewriteMethodValues},
	{"receives", "yaegi stores a receive straight into its destination: a[i] = <-c, a captured x = <-c and return <-c fail or store nothing; case x = <-c panics", fixReceives},
	{"switches", "yaegi converts an interface switch tag to each case's type (a panic), and tests only the first expression of a case list in a boolean switch", fixSwitches},
	{"ifaceequal", "yaegi compares the forms it keeps interface values in, not the values: equal values of a cell's type compare unequal in any or a cell's interface", compareInterfaces},
	{"ifaces", "yaegi puts a composite literal of a cell's type into error bare, panics on error(v), compares its interface wrappers; what the wrapper hides is refused", fixCellValuesInInterfaces},
	{"mapkeys", "yaegi keys a map by its own wrapper of a cell's interface value: equal keys miss, concrete keys panic", refuseCellInterfaceKeys},
	{"shapes", "yaegi builds a cell's struct type from its fields: two struct types with the same fields are one type in an interface (assertions and type switches confuse them)", refuseSameShapes},
	{"funcvalues", "yaegi hands a cell's function named as a value to an interface as its syntax node (assertions fail, %T is *interp.node)", convertFuncValues},
	{"defer", "yaegi evaluates the function, receiver and arguments of a deferred call when it runs, not at the defer statement", evalDeferred},
	{"stringrange", "yaegi's range over a string counts runes, not byte offsets, and steps wrongly over invalid UTF-8", rangeStrings},
	{"rangeassign", "yaegi does not assign the variables of for i = range x as Go does (i is 0 after the loop)", rangeAssigned},
	{"order", "yaegi evaluates and stores an assignment of several values in an order of its own (i, x[i] = …; p, *p = f())", lowerAssignments},
	{"loopvar", "yaegi keeps one variable for a whole loop: closures and pointers made in the loop see its last value", loopVars},
	{"fmtargs", "yaegi hands fmt a value of a cell's error type without its Error method: fmt prints its fields", fixPrintedErrors},
	{"fmtcells", "fmt sees a cell's type without its name, its String method or its unexported field names (reflect cannot give them)", fixPrintedCellTypes},
	{"structtags", "yaegi exports a cell struct's unexported fields (skip as Xskip), which encoding/json and encoding/xml then write", tagUnexportedFields},
	{"reflectnames", "reflect cannot name a type yaegi builds for a cell: Name is \"\", String the structure", refuseReflectNames},
	{"callbacks", "a panic in a callback that compiled code runs on a goroutine of its own (time.AfterFunc, context.AfterFunc, a finalizer) ends the process", guardCallbacks},
	{"looplits", "yaegi puts a function literal's slot back when a call of it returns: a closure of a loop that returns on another goroutine hands the next iteration's use an earlier closure or nil", wrapLoopLiterals},
}

// syntaxPasses run in this order (Cell.Syntactic), after the session has
// checked the cell's declarations: they work from the syntax, the symbol
// tables and the values of earlier cells.
var syntaxPasses = []pass{
	{"topdefer", "yaegi would run a deferred call of a cell's top-level code again after every later cell", refuseTopLevelDefer},
	{"statements", "yaegi lacks range over an integer and min and max of one argument, lets a panicking goroutine end the process, breaks branch statements in select cases, and leaves the value of a failed comma-ok stale (rewrite.go, commaok.go)", rewriteStatements},
	{"index", "yaegi cannot type an index of a compiled value, a generic call or a comma-ok definition in a top-level definition (index.go)", fixIndexes},
	{"compiledmethodvalues", "yaegi types a method value of a pointer to a compiled type as its method expression (methodvalue.go)", fixCompiledMethodValues},
}

// refuseTopLevelDefer refuses defer in the top-level code of a cell.
func refuseTopLevelDefer(x *Cell, ps []*Run) error {
	for _, p := range ps {
		if p.decl {
			continue
		}
		for _, st := range p.body.List {
			if d := topLevelDefer(st); d != nil {
				line := x.fset.Position(d.Pos()).Line
				return newError("Unsupported", "defer in the top-level code of a cell: yaegi, the interpreter, would run the call again after every later cell; "+
					"call it at the end of the cell instead, or defer it inside a function", x.describe(position{serial: x.serial, line: line}))
			}
		}
	}
	return nil
}

// rewriteStatements applies rewrite.go's rewrites and the comma-ok fixes
// to each run.
func rewriteStatements(x *Cell, ps []*Run) error {
	for _, p := range ps {
		x.ci.rewrite(p.node())
		if x.ci.sawCommaOk {
			x.ci.fixStale(p)
		}
	}
	return nil
}

// fixIndexes runs the fixer (index.go) when the cell needs it.
func fixIndexes(x *Cell, ps []*Run) error {
	if x.ci.needsFix() {
		x.ci.fix = newFixer(x.ci, x.here)
		x.ci.fix.fixRuns(ps)
	}
	return nil
}

// fixCompiledMethodValues rewrites the method values of compiled pointer
// types (methodvalue.go).
func fixCompiledMethodValues(x *Cell, ps []*Run) error {
	x.ci.fixMethodValues(ps, x.here)
	return nil
}
