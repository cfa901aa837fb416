#include "textflag.h"

// func current() unsafe.Pointer
//
// The running goroutine's runtime.g is in its register.
TEXT ·current(SB), NOSPLIT, $0-8
	MOVD	g, R0
	MOVD	R0, ret+0(FP)
	RET
