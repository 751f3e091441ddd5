# radref: the two commands a newcomer needs are `make dev` and `make test`.
.PHONY: dev test setup fmt clean corpus-check bench bench-scale profile key revoke-key simulate receiver

## Install what is missing, migrate the local D1 database and serve on 127.0.0.1:8787.
dev:
	@scripts/dev.sh

## Install what is missing, then run every check: host tests, fmt, clippy, integration tests.
test:
	@scripts/test.sh

## Install the toolchain pieces and npm packages only.
setup:
	@scripts/setup.sh

## Format the Rust sources.
fmt:
	@cargo fmt --all

## Remove build outputs and local state (installed tools stay where they are).
clean:
	@rm -rf target build .wrangler

## Validate corpus/ (or DIR=...) and print its figures, without building the worker.
corpus-check:
	@cargo run --quiet --features tools --bin corpus-check -- $(or $(DIR),corpus)

## Benchmarks: host microbenchmarks, then radref against a JS + MiniSearch worker in one workerd
## process (wrk), memory and cold start, and the figures behind wrangler dev.
bench:
	@scripts/bench.sh

## The scale curve: the worker built over synthetic corpora of 41 to 1,000 systems (SCALE_SIZES),
## with size, build time, cold start, memory and search latency at each, and a deploy dry run.
bench-scale:
	@scripts/bench-scale.sh

## Where the CPU goes: a release build with function names kept, sampled in plain workerd
## through its inspector while wrk loads the search route, then the grounding of a long report.
profile:
	@scripts/profile.sh

## Create an API key: make key NAME=<label> [USER_ID=<user id>] [SCOPES="context templates"] [REMOTE=1]
key:
	@scripts/key.sh create "$(NAME)" "$(or $(USER_ID),default)" "$(or $(SCOPES),context)"

## Revoke an API key: make revoke-key ID=<key id> [REMOTE=1]
revoke-key:
	@scripts/key.sh revoke "$(ID)"

## Publish sample events to a running service: make simulate [TYPE=report.finalized|all] [KEY=...] [BASE_URL=...]
simulate:
	@TYPE="$(or $(TYPE),all)" scripts/simulate.sh

## A local webhook receiver that verifies signatures: SECRET=<secret> make receiver [PORT=9000]
## (the secret is read from the environment, never put on a command line)
receiver:
	@RADREF_RECEIVER_SECRET="$$SECRET" python3 scripts/receiver.py --port "$(or $(PORT),9000)"
