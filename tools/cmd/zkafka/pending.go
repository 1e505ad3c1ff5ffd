package main

import "io"

func dumpLogSegments(args []string, stdout, stderr io.Writer) int { return 1 }
