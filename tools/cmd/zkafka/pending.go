package main

import "io"

func zookeeperServerStart(args []string, stdout, stderr io.Writer) int { return 1 }
func zookeeperServerStop(args []string, stdout, stderr io.Writer) int  { return 1 }
func zookeeperShell(args []string, stdout, stderr io.Writer) int       { return 1 }
func dumpLogSegments(args []string, stdout, stderr io.Writer) int      { return 1 }
