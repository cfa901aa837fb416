package rewrite

import (
	"reflect"
)

// errorsIs is __gnb.ErrorsIs: errors.Is(err, target), with yaegi's
// wrapper of a cell's error compared by the pointer it holds. yaegi makes
// a new wrapper (a struct with a function field) each time a cell's value
// becomes an error, and Go cannot compare those: errors.Is never found a
// sentinel error of a cell's pointer type. A wrapper of a value that is
// not a pointer holds only part of it (yaegi keeps the last field of a
// struct): a target of that kind panics, saying so, rather than compare
// wrongly. The Is and Unwrap methods of the cells' types are not seen
// (the ifaces pass refuses errors.Is while a cell's type has them).
//
// Its operands are any: yaegi hands a value of a cell's pointer type to a
// compiled parameter of type error bare, without its methods.
func errorsIs(err, target any) bool {
	if target == nil || err == nil {
		return err == target
	}
	key, ok := errorKey(target)
	if !ok && cellValue(target) {
		panic("errors.Is cannot compare with this target: it holds a value of a type declared in a cell that is not a pointer, and yaegi, the interpreter, keeps only part of such a value in an error; " +
			"declare the error's methods on a pointer type (func (e *MyErr) Error() string) and use pointers, or test the chain yourself with type assertions")
	}
	e, isErr := err.(error)
	if !isErr { // a cell's value, bare
		k, kok := errorKey(err)
		return ok && kok && k == key
	}
	t, _ := target.(error) // nil for a cell's value, bare: no Is method gets it
	return errorIs(e, t, key, ok)
}

// errorIs is errors.Is's walk of err's tree: key is what target compares
// as (comparable false: it cannot be compared, only its Is methods help).
func errorIs(err, target error, key any, comparable bool) bool {
	for {
		if comparable {
			if k, ok := errorKey(err); ok && k == key {
				return true
			}
		}
		if x, ok := err.(interface{ Is(error) bool }); ok && target != nil && x.Is(target) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
			if err == nil {
				return false
			}
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if e != nil && errorIs(e, target, key, comparable) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
}

// errorKey returns what == compares of an error: the error itself when its
// dynamic type is comparable; for a cell's pointer value, bare or in
// yaegi's wrapper, that pointer. ok is false when it cannot be compared.
func errorKey(e any) (any, bool) {
	v := reflect.ValueOf(e)
	if isCellErrorWrapper(e) {
		inner := v.Field(0)
		if inner.IsNil() || inner.Elem().Kind() != reflect.Pointer {
			return nil, false
		}
		return inner.Elem().Interface(), true
	}
	if cellValue(e) && v.Kind() != reflect.Pointer {
		return nil, false
	}
	if !v.Type().Comparable() {
		return nil, false
	}
	return e, true
}

// cellValue reports whether e is a value of a type declared in a cell,
// bare (a type yaegi built with reflect: no name, no methods) or in
// yaegi's wrapper of an error.
func cellValue(e any) bool {
	if isCellErrorWrapper(e) {
		return true
	}
	t := reflect.TypeOf(e)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name() == "" && t.NumMethod() == 0 && t.Kind() == reflect.Struct
}

// isCellErrorWrapper reports whether e is yaegi's wrapper of a cell's value
// converted to error (interp._error: IValue, then WError).
func isCellErrorWrapper(e any) bool {
	t := reflect.TypeOf(e)
	return t.Kind() == reflect.Struct && t.Name() == "_error" && t.PkgPath() == yaegiInterp &&
		t.NumField() > 0 && t.Field(0).Name == "IValue"
}
