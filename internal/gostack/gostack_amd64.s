#include "textflag.h"

// func current() unsafe.Pointer
//
// The running goroutine's runtime.g is in thread-local storage.
TEXT ·current(SB), NOSPLIT, $0-8
	MOVQ	(TLS), AX
	MOVQ	AX, ret+0(FP)
	RET
