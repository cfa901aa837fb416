//go:build !race

package canceltest

import "time"

const raceEnabled = false

const raceBound = time.Duration(0)
