# The obvious targets. `make demo` and `make test` are the two commands the
# README promises work on a fresh machine.
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
FUZZTIME ?= 20s
# go test's per-package timeout. The slowest package, integration, builds
# modellint for its release, install and pre-commit tests and took up to
# 464 s on a cold 2-core machine; the default 10 minutes was too close.
TEST_TIMEOUT ?= 25m

.PHONY: build test demo bench fuzz fuzz-ci mutate lint docs check-docs clean release

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/ ./cmd/modellint ./cmd/modellint-helm

test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./...

# Lints the bundled examples: the broken deployment exits 1 with findings,
# the fixed one exits 0.
demo: build
	@echo '$$ modellint --offline testdata/examples/broken'
	@./bin/modellint --offline testdata/examples/broken; test $$? -eq 1
	@echo
	@echo '$$ modellint --offline testdata/examples/fixed'
	@./bin/modellint --offline testdata/examples/fixed

# Every benchmark once, as one table (scripts/bench.sh): wall, CPU and peak
# RSS per workload against its floor measured in the same run. The image
# benchmark builds a 2 GiB synthetic image once (cached under
# $XDG_CACHE_HOME/modellint-bench) and compares with gzip -dc and pigz -dc
# of its layers; the manifest benchmarks (cmd/modellint) lint 10,000
# generated Deployments in 1,000 files, the shared corpus and big model
# files in a subprocess, and time `modellint version`. docs/performance.md
# keeps the latest table.
bench:
	GO='$(GO)' scripts/bench.sh

# Runs every fuzz target for FUZZTIME each; a crasher stays in the
# package's testdata/fuzz as a regression seed.
fuzz:
	GO='$(GO)' FUZZTIME='$(FUZZTIME)' scripts/fuzz.sh

# The short pass CI runs after the tests.
fuzz-ci:
	GO='$(GO)' FUZZTIME=3s scripts/fuzz.sh

# Mutation testing (go-gremlins) of one package, PKG, against its own tests:
# each mutant is a small change to the code (a negated condition, a boundary
# moved), and one that LIVED is a change no test notices. Gremlins mutates a
# copy of the module. Not part of `make test`: a package takes minutes to
# hours. One CPU through GOMAXPROCS, not --test-cpu: gremlins v0.6.0 passes
# that to go test as one argument ("-cpu 1"), every test run fails to
# start, and every mutant counts as killed. Each mutant runs the package's
# own tests only: for rules/, whose scenario suites take a minute a mutant,
#   GOFLAGS='-skip=^Test(Scenarios|WithoutFixes|ScenariosOnOneCPU|ScenariosWithExplicitLinks)$' make mutate PKG=./rules
# runs the fixtures and unit tests (~10 s a mutant); try what lives, and
# what gremlins calls NOT COVERED (a switch's case expressions, which Go's
# coverage does not count), against the scenarios and cmd/modellint's fix
# goldens by hand.
GREMLINS ?= github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
PKG ?= ./lint/model/serverconfig
MUTATE_TIMEOUT ?= 30m
# FILES='cross.go argv.go' mutates only those files of PKG (not its subdirectories).
FILES ?=
MUTATE_EXCLUDE = $(if $(FILES),--exclude-files / $(foreach f,$(filter-out $(FILES) %_test.go,$(notdir $(wildcard $(PKG)/*.go))),--exclude-files '^$(subst .,\.,$(f))$$'))
# ONLY=conditionals-negation makes only that kind of mutant (gremlins' flag names).
ONLY ?=
GREMLINS_DEFAULT_MUTANTS := arithmetic-base conditionals-boundary conditionals-negation increment-decrement invert-negatives
# MUTATE_FLAGS passes more flags to gremlins unleash (--dry-run counts the mutants).
MUTATE_FLAGS ?=
MUTATE_KINDS = $(if $(ONLY),$(foreach k,$(filter-out $(ONLY),$(GREMLINS_DEFAULT_MUTANTS)),--$(k)=false) $(foreach k,$(ONLY),--$(k)))
mutate:
	GOMAXPROCS=1 timeout $(MUTATE_TIMEOUT) $(GO) run $(GREMLINS) unleash --workers 1 --timeout-coefficient 30 $(MUTATE_KINDS) $(MUTATE_EXCLUDE) $(MUTATE_FLAGS) $(PKG)

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

docs:
	$(GO) run ./cmd/modellint rules --markdown > docs/rules.md

# Release archives and checksums under DIST, named as .goreleaser.yaml names
# them; PLATFORMS=linux/amd64 builds only that one.
DIST ?= dist
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
release:
	GO='$(GO)' VERSION='$(VERSION)' DIST='$(DIST)' PLATFORMS='$(PLATFORMS)' scripts/release.sh

clean:
	rm -rf bin dist
