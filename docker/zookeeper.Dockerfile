# The ZooKeeper image: Debian 12 with a headless JRE and Debian's ZooKeeper 3.8 (the root
# filesystem docker/debian-rootfs.sh makes from Debian packages, imported as BASE), plus the
# static zkafka-docker entrypoint, which writes zoo.cfg from ZOO_* variables and execs
# QuorumPeerMain, and answers the health check with srvr. Built by `make docker-images`.
ARG BASE
FROM ${BASE}
RUN useradd --uid 1000 --home-dir /var/lib/zookeeper --no-create-home --shell /usr/sbin/nologin zookeeper \
 && mkdir -p /var/lib/zookeeper && chown zookeeper:zookeeper /var/lib/zookeeper
COPY zkafka-docker /opt/zkafka/bin/zkafka-docker
USER zookeeper
WORKDIR /var/lib/zookeeper
VOLUME /var/lib/zookeeper
EXPOSE 2181 2888 3888
ENTRYPOINT ["/opt/zkafka/bin/zkafka-docker", "zookeeper"]
HEALTHCHECK --interval=3s --timeout=10s --start-period=60s --retries=20 CMD ["/opt/zkafka/bin/zkafka-docker", "health", "zookeeper"]
