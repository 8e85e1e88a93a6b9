# The front door. Every target is one line a newcomer can read.
GO      ?= go
DESIGNS ?= $(wildcard designs/*.yaml)
REPORTS ?= reports
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null)
LDFLAGS := -s -w $(if $(VERSION),-X main.version=$(VERSION))
GOFMT   ?= $(shell $(GO) env GOROOT)/bin/gofmt

.PHONY: build test test-underload validate plan lint fmt fuzz mutate bench nightly baseline-check schema clean

build:            ## build bin/validate
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/validate ./cmd/validate

test:             ## gofmt check, vet, every test, the race detector on the concurrent packages; under CI=true also skip accounting and every fuzz target for FUZZEXECS_CI inputs beyond its corpus (the CI command)
	@test -z "$$($(GOFMT) -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; $(GOFMT) -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	$(call gotest,plain,-count=1 -timeout 30m ./...)
	@# The concurrent packages again under the race detector (it needs cgo; skipped without a C compiler).
	@if [ "$$($(GO) env CGO_ENABLED)" = 1 ] && command -v "$$($(GO) env CC)" >/dev/null; then \
		$(call gotest,race,-race -count=1 -timeout 30m $(RACE_PKGS)); \
	else echo "race detector skipped: no cgo"; fi
	@if [ "$$CI" = true ]; then FUZZEXECS=$(FUZZEXECS_CI) GO=$(GO) ./scripts/fuzz.sh; fi

# gotest runs go test with the arguments after the pass name (plain, race). Under CI (CI=true) its
# events go through scripts/skipcheck, which prints what go test would and fails on a test that
# failed, a skip .ci/allowed-skips does not list for that pass, or a test .ci/required-tests names
# for that pass that did not run and pass.
gotest = if [ "$$CI" = true ]; then \
		$(GO) test -json $(2) | $(GO) run ./scripts/skipcheck -pass $(1) -allowed .ci/allowed-skips -required .ci/required-tests; \
	else $(GO) test $(2); fi

# How long `make fuzz` runs each fuzz target, and how many new inputs beyond its corpus `make test`
# runs under CI (a count, not a time: a busy 2-core machine fuzzes as much as an idle one).
FUZZTIME     ?= 60s
FUZZEXECS_CI ?= 1000

RACE_PKGS := ./internal/engine/... ./internal/pipeline ./internal/seed ./internal/probe ./internal/report

# TARGET and ENDPOINT choose where `make validate` runs: unset = the default target (auto);
# TARGET=emulator; TARGET=account ENDPOINT=https://<account>.documents.azure.com:443/ (Entra ID, or
# the key in CDV_KEY). They are passed as --target and --endpoint.
TARGET   ?=
ENDPOINT ?=
TARGET_FLAGS = $(if $(TARGET),--target $(TARGET)) $(if $(ENDPOINT),--endpoint $(ENDPOINT))

# Exit codes: make reports any failing command as its own status 2, so through `make validate` and
# `make nightly` a regression (1), a design error (2) and an unreachable target (3) look alike. CI
# calls ./bin/validate (or the installed validate) itself and keeps 0/1/2/3: docs/workflows/.
validate: build   ## run every example design end to end (TARGET=emulator, or TARGET=account ENDPOINT=https://...); exits by the verdicts
	./bin/validate run $(TARGET_FLAGS) --out $(REPORTS) --format text,md,json,junit,html $(DESIGNS)

plan: build       ## cost and capacity of every example design from the model alone
	./bin/validate plan $(DESIGNS)

lint:             ## gofmt, go vet, staticcheck when installed, and the example designs
	@test -z "$$($(GOFMT) -l $$(git ls-files '*.go'))" || ($(GOFMT) -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	@command -v staticcheck >/dev/null && staticcheck ./... || true
	$(GO) run ./cmd/validate lint $(DESIGNS)

fmt:
	$(GOFMT) -w $$(git ls-files '*.go')

fuzz:             ## every fuzz target of the module (found by go test -list) for FUZZTIME each from its committed corpus, then the cross-partition pipeline's property test
	FUZZTIME=$(FUZZTIME) GO=$(GO) ./scripts/fuzz.sh
	$(GO) test -count=1 -run TestPipelineMatchesSinglePartition ./internal/probe/fanout -fanout.cases 250000 -fanout.seed 7

# MUTATE_FLAGS narrows the source mutation check, e.g. MUTATE_FLAGS="-only QueryEntry -pkgs ./internal/...".
MUTATE_FLAGS ?=

mutate:           ## source mutation check: every rate-card coefficient, table and threshold (scripts/mutate/sites.txt) ×1.5 and ×0.6 in a scratch copy, the suite run against each; fails on any survivor (hours: nightly)
	$(GO) run ./scripts/mutate $(MUTATE_FLAGS)

# RUNS and BURNERS size the run under load (scripts/underload.sh): RUNS runs of `make test` beside
# BURNERS busy loops (default one per core).
RUNS    ?= 3
BURNERS ?=

test-underload:   ## `make test` RUNS times in a row (3) beside a CPU burner on every core: the suite must not depend on a quiet machine
	RUNS=$(RUNS) $(if $(BURNERS),BURNERS=$(BURNERS)) MAKE=$(MAKE) ./scripts/underload.sh

bench:            ## engine, query, seeding and start-up benchmarks (figures in docs/performance.md)
	$(GO) test -run '^$$' -bench . -skip 'OrderByGrowth|OrderByHTTPS' -benchmem ./internal/engine/...
	$(GO) test -run '^$$' -bench SeedCeiling -benchtime 5x -count 3 ./internal/pipeline/
	$(GO) test -run '^$$' -bench ServeStartup -benchtime 10x -count 3 ./cmd/validate/
	$(GO) test -count=1 -run TestEstimatorMatchesExecutionAtScale ./internal/pipeline/ -consistency.n 200000
	for i in 1 2 3; do $(GO) test -count=1 -run '^$$' -bench OrderByGrowth -benchtime 1x ./internal/engine/sql/ || exit 1; done
	for i in 1 2 3; do $(GO) test -count=1 -run '^$$' -bench OrderByHTTPS -benchtime 1x ./internal/engine/ || exit 1; done

NIGHTLY_TARGET = $(or $(TARGET),embedded)
BASELINES ?= baselines/$(NIGHTLY_TARGET)/
nightly: build    ## what the nightly job runs: compare every design with its committed baseline for TARGET (default embedded)
	./bin/validate run --target $(NIGHTLY_TARGET) $(if $(ENDPOINT),--endpoint $(ENDPOINT)) --baseline $(BASELINES) --fail-on-model-change --out $(REPORTS) --format text,md,json,junit,html $(DESIGNS)

baseline-check: build  ## exit 1 when a committed baseline in baselines/embedded/ differs from what this build writes
	./bin/validate baseline check --baseline baselines/embedded/ $(DESIGNS)

schema:           ## regenerate schema/design.schema.json from the Go types
	$(GO) generate ./internal/design && $(GO) generate ./internal/studio

clean:
	rm -rf bin $(REPORTS)

-include docker/emulator.mk
