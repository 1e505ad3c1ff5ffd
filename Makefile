# zkafka — see README.md. `make test` is what CI runs (.ci/run).
GO        ?= go
PKGS      ?= ./...
FUZZTIME  ?= 300000x
DATA      ?= $(CURDIR)/data

.PHONY: systemtest bench-broker bench-scale bench-clients deps all build test unit fuzz lint run zk-up zk-down bench clean generate check-generate study-kip101 chaos-hw docker-images docker-test

all: build

build: ## the zkafka binary beside the bin/*.sh wrappers (static: the broker image runs it FROM scratch)
	CGO_ENABLED=0 $(GO) build -o bin/zkafka ./tools/cmd/zkafka

lint: ## gofmt + go vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

generate: ## regenerate checked-in code (protocol codecs)
	$(GO) generate ./clients/protocol/...

check-generate: ## the checked-in generated code matches the generator
	@$(GO) generate ./clients/protocol/... && git diff --exit-code -- clients/protocol || (echo "generated code is stale: run make generate"; exit 1)

# Packages whose goroutines race by design run again under the race detector (one per line, so merges append).
RACE_PKGS = \
	./core/utils/... \
	./core/server/... \
	./core/log/... \
	./core/cluster/... \
	./core/controller/... \
	./zk/zkclient/... \
	./clients/record/... \
	./core/network/... \
	./core/coordinator/... \
	./clients/oldconsumer/... \
	./clients/oldproducer/... \
	./tools/replicaverification/... \
	./clients/network/ \
	./clients/metrics/ \
	./clients/ \
	./clients/producer/ \
	./tools/perf/ \
	./tools/consoleproducer/ \
	./tools/verifiable/ \
	./tools/mirrormaker/ \
	./tools/replaylogproducer/ \
	./clients/consumer/ \
	./clients/security/ \
	./core/security/... \
	./core/integration/ \
	./core/metrics/ \
	./tools/consoleconsumer/ \
	./zk/ensemble/

unit: ## every package's tests (real ZooKeeper for zk/*), plus the race detector where goroutines race by design
	ZKAFKA_BIN=$(CURDIR)/bin/zkafka $(GO) test -count=1 -timeout 20m $(PKGS)
	$(GO) test -count=5 -run '^TestLeaderElection$$' ./zk/zkutils/
	$(GO) test -count=1 -race -timeout 15m $(RACE_PKGS)

# Decoders of untrusted bytes (requests, message sets, znode JSON, index and checkpoint files).
# Each runs for a number of executions (Nx, about the seconds it had on the 2-core CI machine),
# not a duration: Go 1.26's fuzzing coordinator can fail a duration-bounded run with a bare
# "context deadline exceeded" when the time runs out while a starved worker is mid-input
# (go.dev/issue/75804, fixed in Go 1.27); a count has no deadline to race.
FUZZ_TARGETS = \
	clients/protocol:FuzzParseRequest:$(FUZZTIME) \
	clients/protocol:FuzzReadFrom:$(FUZZTIME) \
	clients/record:FuzzMemoryRecordsDeep:$(FUZZTIME) \
	clients/protocol:FuzzConsumerProtocol:100000x \
	zk/zkutils:FuzzDecoders:50000x \
	core/log:FuzzIndexFiles:3000x \
	core/log:FuzzParseOffsetCheckpoint:60000x \
	core/coordinator:FuzzReadGroupMessageValue:60000x \
	core/server:FuzzKafkaApisHandle:40000x \
	clients/oldconsumer:FuzzConsumerIterator:60000x \
	tools/commandline:FuzzMessageFormatters:20000x \
	clients/network:FuzzReadNetworkReceive:80000x \
	core/log:FuzzParseLeaderEpochCheckpoint:50000x \
	clients/protocol:FuzzOffsetsForLeaderEpoch:80000x \
	clients/security:FuzzSaslServerAuthenticator:100000x \
	clients/security:FuzzParseJaasConfig:100000x

fuzz: ## each decoder's fuzz target for a bounded time
	@set -e; for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; rest=$${t#*:}; name=$${rest%%:*}; dur=$${rest#*:}; \
	  echo "fuzz $$pkg $$name $$dur"; \
	  $(GO) test -run=NONE -fuzz="^$$name\$$" -fuzztime=$$dur ./$$pkg/; \
	done

test: lint build unit fuzz docker-test ## everything CI runs

bench: ## benchmarks (figures quoted in the issues' notes)
	$(GO) test -run=NONE -bench=. -benchmem -benchtime=2s ./clients/protocol/ ./clients/record/ ./core/log/ ./core/utils/timer/ ./core/server/purgatory/

$(DATA)/zookeeper.properties: config/zookeeper.properties
	mkdir -p $(DATA)
	sed 's|^dataDir=.*|dataDir=$(DATA)/zookeeper|' config/zookeeper.properties > $@

$(DATA)/server.properties: config/server.properties
	mkdir -p $(DATA)
	sed 's|^log.dirs=.*|log.dirs=$(DATA)/kafka-logs|' config/server.properties > $@

run: deps build $(DATA)/zookeeper.properties $(DATA)/server.properties ## ZooKeeper on 127.0.0.1:2181 and a broker on 127.0.0.1:9092, data under ./data (foreground; Ctrl-C stops both)
	@bin/zkafka zookeeper-server-start $(DATA)/zookeeper.properties > $(DATA)/zookeeper.out 2>&1 & zk=$$!; \
	trap 'kill $$zk 2>/dev/null; wait $$zk 2>/dev/null' EXIT; trap 'exit 130' INT TERM; \
	for i in $$(seq 1 120); do grep -q serving $(DATA)/zookeeper.out 2>/dev/null && break; \
	  kill -0 $$zk 2>/dev/null || { cat $(DATA)/zookeeper.out; exit 1; }; sleep 0.5; done; \
	echo "ZooKeeper serving on 127.0.0.1:2181 (log: $(DATA)/zookeeper.out); starting the broker on 127.0.0.1:9092"; \
	bin/zkafka server-start $(DATA)/server.properties

zk-up: build $(DATA)/zookeeper.properties ## ZooKeeper in the background (pid in data/zookeeper.pid)
	nohup bin/zkafka zookeeper-server-start $(DATA)/zookeeper.properties > $(DATA)/zookeeper.out 2>&1 & echo $$! > $(DATA)/zookeeper.pid
	@for i in $$(seq 1 60); do grep -q "serving" $(DATA)/zookeeper.out 2>/dev/null && break; sleep 0.5; done; cat $(DATA)/zookeeper.out

zk-down: ## stop what zk-up started
	-kill $$(cat $(DATA)/zookeeper.pid) 2>/dev/null; rm -f $(DATA)/zookeeper.pid

systemtest: build ## every systemtests scenario incl. the full 1,000,000-message codec x client matrix and the 100-round fault run
	ZKAFKA_LONG=1 ZKAFKA_BIN=$(CURDIR)/bin/zkafka $(GO) test -count=1 -timeout 120m -v ./systemtests/

study-kip101: build ## the double failure that loses an acknowledged message with 0.10.2's HW truncation, then the same run with zkafka.leader.epoch.truncation.enable (real brokers; prints the state changes and truncations)
	ZKAFKA_BIN=$(CURDIR)/bin/zkafka $(GO) test -count=1 -v -run 'TestKIP101DoubleFailure' ./systemtests/

chaos-hw: build ## the 100-round random fault run with 0.10.2's HW truncation: reports the acknowledged messages it loses (make systemtest runs it with leader-epoch truncation)
	ZKAFKA_LONG=1 ZKAFKA_CHAOS_HW=1 ZKAFKA_BIN=$(CURDIR)/bin/zkafka $(GO) test -count=1 -timeout 120m -v -run 'TestChaosHighWatermarkTruncation' ./systemtests/

bench-broker: build ## zkafka vs kfake (in-memory Go Kafka) vs the floor (raw broker: CRC, pwrite, sendfile), sarama + kcat clients, interleaved, 5 runs each, >= 1 s broker CPU per figure
	$(GO) run ./systemtests/cmd/benchbroker -zkafka $(CURDIR)/bin/zkafka -runs 5

bench-scale: build ## 3 brokers, RF 3, 1,000 then 10,000 partitions: leader moves after SIGKILL, controller failover, Metadata latency, RSS per partition, start time, idle RSS, 10,000 idle connections
	$(GO) run ./systemtests/cmd/benchscale -zkafka $(CURDIR)/bin/zkafka -partitions 1000,10000 -connections 10000

bench-clients: build ## kafka-producer-perf-test vs sarama's AsyncProducer vs kcat on one zkafka broker: records/s, CPU/record, RSS; 5 runs each
	$(GO) run ./systemtests/cmd/benchclients -zkafka $(CURDIR)/bin/zkafka -runs 5

clean:
	rm -f bin/zkafka

deps: ## install Java, ZooKeeper and kcat from Debian when missing (needs root)
	bash .ci/install-deps

# Docker (docker/, docs/docker.md): images built here from Go modules and Debian packages, nothing pulled.
COMPOSE ?= $(shell docker compose version >/dev/null 2>&1 && echo "docker compose" || echo docker-compose)

docker-images: ## zkafka/broker (FROM scratch) and zkafka/zookeeper (Debian root filesystem) images; reuses what is built
	GO=$(GO) docker/build-images.sh

docker-test: build docker-images ## compose up 3 ZooKeeper + 3 brokers, topics from host and container, kcat, a broker stopped and restarted, down -v
	ZKAFKA_DOCKER_TEST=1 COMPOSE="$(COMPOSE)" ZKAFKA_BIN=$(CURDIR)/bin/zkafka $(GO) test -count=1 -timeout 15m -run '^TestDockerCompose$$' -v ./systemtests/
