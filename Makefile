# The obvious targets. `make demo` and `make test` are the two commands the
# README promises work on a fresh machine.
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
FUZZTIME ?= 20s

.PHONY: build test demo bench fuzz lint docs check-docs clean

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/modellint ./cmd/modellint

test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

# Lints the bundled examples: the broken deployment exits 1 with findings,
# the fixed one exits 0.
demo: build
	@echo '$$ modellint testdata/examples/broken'
	@./bin/modellint testdata/examples/broken; test $$? -eq 1
	@echo
	@echo '$$ modellint testdata/examples/fixed'
	@./bin/modellint testdata/examples/fixed

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Runs every fuzz target for FUZZTIME each.
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$target"; \
	    $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

docs:
	$(GO) run ./cmd/modellint rules --markdown > docs/rules.md

clean:
	rm -rf bin
