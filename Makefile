# Two set-up commands that work on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TORCH := torch==2.13.0
STAMP := $(VENV)/.installed

.PHONY: demo test lint install clean

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q $(TORCH)
	$(BIN)/pip install -q -e ".[test,lint]" "$(TORCH)"
# OpenCLIP for the tests, in a folder of its own: PyPI's torchvision for torch 2.13 is a CUDA build
# that breaks transformers and Lightning imports from site-packages (tests/model/entry_models.py)
	$(BIN)/pip install -q --no-deps --upgrade --target $(VENV)/open_clip "open_clip_torch>=3,<4" torchvision==0.28.0 ftfy wcwidth
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/castwise doctor

test: $(STAMP)
	command -v chromium >/dev/null || (export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && \
		apt-get install -y -qq --no-install-recommends chromium </dev/null) || \
		echo "chromium not installed (needs root and apt-get): the HTML report's browser tests will be skipped"
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build src/*.egg-info
