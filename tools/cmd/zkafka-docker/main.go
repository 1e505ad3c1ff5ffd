// Command zkafka-docker is the entrypoint and health check of zkafka's Docker images (see
// tools/dockerentrypoint and docs/docker.md).
package main

import (
	"os"

	"github.com/zkafka/zkafka/tools/dockerentrypoint"
)

func main() { os.Exit(dockerentrypoint.Main(os.Args[1:], os.Environ(), os.Stdout, os.Stderr)) }
