//go:build race

package kernel

// raceEnabled shrinks the heaviest tests under the race detector.
const raceEnabled = true
