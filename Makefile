# The README's two commands: `make site` builds the whole site, `make test` runs every test.
# Both create .venv/ with the project installed when it is missing or pyproject.toml changed.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: site test serve check lint data-check bench lighthouse schemas clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

site: $(STAMP)
	$(BIN)/gpu-guide build
	$(BIN)/gpu-guide prices table --write

test: $(STAMP)
	$(BIN)/python -m pytest -q

serve: $(STAMP)
	$(BIN)/gpu-guide serve

# Quality gates, exactly the pull-request workflow's (.github/workflows/pr.yml runs `make lint`, the
# tests, then `make data-check FORMAT=github`): lint and format (ruff), strict types (mypy) on the
# generator and the tests, the data valid with no warning and the committed pages current.
FORMAT ?= plain

check: lint data-check

lint: $(STAMP)
	$(BIN)/ruff check generator tests
	$(BIN)/ruff format --check generator tests
	$(BIN)/mypy generator tests

data-check: $(STAMP)
	$(BIN)/gpu-guide check --strict --format $(FORMAT)

bench: $(STAMP)
	$(BIN)/python -m generator.cli.bench $(ARGS)

# Lighthouse (npm, pinned in tools/lighthouse/package-lock.json) on eight page kinds of site/, served
# with gzip, in Debian's chromium; prints the scores table. Slow and machine-dependent: not in `make test`.
lighthouse: $(STAMP)
	test -f site/index.html || $(BIN)/gpu-guide build
	tools/lighthouse/run.sh site

# JSON Schemas for editors' YAML tooling, generated from the record models
schemas: $(STAMP)
	$(BIN)/python -m generator.cli.schemas

clean:
	rm -rf site .site-staging* .docs-staging* .docs-old* .site-old*
