package main

import "io"

func zookeeperShell(args []string, stdout, stderr io.Writer) int  { return 1 }
func dumpLogSegments(args []string, stdout, stderr io.Writer) int { return 1 }
