#!/bin/sh
# Builds zkafka's two images here, from Go modules and Debian packages, pulling no image
# (`make docker-images`):
#   zkafka/broker:$ZKAFKA_TAG     FROM scratch: the static bin/zkafka (with the bin/ script names
#                                 as links to it), zkafka-docker, config/
#   zkafka/zookeeper:$ZKAFKA_TAG  zkafka/debian-jre:<recipe hash> (docker/debian-rootfs.sh,
#                                 imported) plus zkafka-docker
# What is already built is reused: the Debian root filesystem while docker/debian-rootfs.sh is
# unchanged (its hash is the base image's tag), and Docker's layer cache for the rest.
set -eu
cd "$(dirname "$0")/.."
tag=${ZKAFKA_TAG:-latest}
go=${GO:-go}
docker=${DOCKER:-docker}
out=build/docker

# Static binaries (CGO_ENABLED=0, as `make build` makes bin/zkafka): they run FROM scratch.
mkdir -p "$out"
CGO_ENABLED=0 "$go" build -o "$out/zkafka" ./tools/cmd/zkafka
CGO_ENABLED=0 "$go" build -o "$out/zkafka-docker" ./tools/cmd/zkafka-docker

# Broker: stage the root filesystem, then a FROM-scratch build.
ctx=$out/broker
rm -rf "$ctx"
mkdir -p "$ctx/rootfs/opt/zkafka/bin" "$ctx/rootfs/opt/zkafka/config" "$ctx/rootfs/tmp" "$ctx/data"
chmod 1777 "$ctx/rootfs/tmp"
cp "$out/zkafka" "$ctx/rootfs/opt/zkafka/bin/zkafka"
cp "$out/zkafka-docker" "$ctx/rootfs/opt/zkafka/bin/zkafka-docker"
"$out/zkafka" gen-scripts --links --out "$ctx/rootfs/opt/zkafka/bin"
cp config/* "$ctx/rootfs/opt/zkafka/config/"
"$docker" build -q -f docker/Dockerfile -t "zkafka/broker:$tag" "$ctx"

# ZooKeeper: the Debian root filesystem (slow, once per recipe), then the entrypoint on top.
recipe=$(sha256sum docker/debian-rootfs.sh | cut -c1-12)
base=zkafka/debian-jre:$recipe
if ! "$docker" image inspect "$base" >/dev/null 2>&1; then
  echo "making the Debian root filesystem for $base (docker/debian-rootfs.sh)"
  rm -f "$out/rootfs.tar"
  docker/debian-rootfs.sh "$out/rootfs.tar"
  "$docker" import -m "docker/debian-rootfs.sh $recipe" "$out/rootfs.tar" "$base"
  rm -f "$out/rootfs.tar"
fi
ctx=$out/zookeeper
rm -rf "$ctx"
mkdir -p "$ctx"
cp "$out/zkafka-docker" "$ctx/zkafka-docker"
"$docker" build -q -f docker/zookeeper.Dockerfile --build-arg "BASE=$base" -t "zkafka/zookeeper:$tag" "$ctx"
"$docker" image ls --format '{{.Repository}}:{{.Tag}}  {{.Size}}' | grep '^zkafka/'
