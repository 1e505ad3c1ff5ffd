#!/bin/sh
# Writes the ZooKeeper image's root filesystem, as a tarball for `docker import`, from Debian
# packages only: Debian 12 (bookworm) with a headless JRE and Debian's ZooKeeper jars
# (libzookeeper-java, ZooKeeper 3.8, and slf4j-simple for its log), installed by apt with their
# maintainer scripts, as on any Debian machine. `make docker-images` runs it once per version of
# this file (the image is tagged with its hash) and reuses the result.
#
# Why mmdebstrap: it is Debian's debootstrap successor, resolves --include with apt itself (the
# JRE's virtual and alternative dependencies included), runs the maintainer scripts in a chroot
# it mounts and unmounts on its own, and writes the tarball directly. Nothing comes from the
# machine's own files, so the image is the same on every machine that reaches a Debian mirror.
#
# usage: docker/debian-rootfs.sh OUT.tar
#   DEBIAN_SUITE (bookworm), DEBIAN_MIRROR (http://deb.debian.org/debian) and
#   DEBIAN_SECURITY_MIRROR (http://deb.debian.org/debian-security) override the sources.
set -eu
out=${1:?usage: $0 OUT.tar}
suite=${DEBIAN_SUITE:-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
if ! command -v mmdebstrap >/dev/null 2>&1; then
  echo "$0: mmdebstrap is missing (apt-get install mmdebstrap; .ci/install-deps does)" >&2
  exit 1
fi
# mmdebstrap's helpers are Python scripts started through `env python3`: keep a pyenv or
# virtualenv python3 first on PATH away from them.
PATH=/usr/sbin:/usr/bin:/sbin:/bin exec mmdebstrap \
  --variant=apt \
  --aptopt='APT::Install-Recommends "false"' \
  --aptopt='Acquire::Languages "none"' \
  --dpkgopt=force-unsafe-io \
  --include=default-jre-headless,libzookeeper-java,libslf4j-java \
  --customize-hook='rm -rf "$1"/usr/share/doc/* "$1"/usr/share/man/* "$1"/usr/share/locale/* "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/* "$1"/etc/dpkg/dpkg.cfg.d/99mmdebstrap' \
  "$suite" "$out" \
  "deb $mirror $suite main" "deb $mirror $suite-updates main" "deb $security $suite-security main"
