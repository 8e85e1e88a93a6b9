//go:build race

package pipeline

// raceEnabled is true when the tests run under the race detector.
const raceEnabled = true
