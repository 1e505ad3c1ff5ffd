//go:build !race

package purgatory

const raceEnabled = false
