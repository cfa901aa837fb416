//go:build race

package canceltest

import "time"

const raceEnabled = true

// raceBound is Bound under the race detector.
const raceBound = 2 * time.Second
