# GoodBuddy KB — developer entry points. `make run` and `make test` create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast lint typecheck build check clean bench eval screenshots eval-all dist test-install

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/goodbuddy-kb

# The suite runs in two worker processes where there are two cores (a file's tests stay on one
# worker); PYTHONDONTWRITEBYTECODE is lifted so the many backend processes the tests start reuse
# compiled modules instead of compiling the sources at every start.
TEST_JOBS := $(shell n=$$(nproc 2>/dev/null || echo 1); if [ "$$n" -ge 2 ]; then echo 2; else echo 0; fi)
test: $(STAMP)
	PYTHONDONTWRITEBYTECODE= QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadfile

# Unit tests only: no backend process, no loopback server, no GUI window, nothing slow (< 2 min).
test-fast: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -m "not integration and not gui and not slow"

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

build: $(STAMP)
	rm -f dist/*.whl
	$(BIN)/python -m build --wheel --outdir dist . >/dev/null
	$(BIN)/python -c "import sys, zipfile, glob; names = zipfile.ZipFile(glob.glob('dist/*.whl')[0]).namelist(); sys.exit(0 if any(n.startswith('goodbuddy_kb/migrations/') and n.endswith('.sql') for n in names) else 'wheel is missing migrations/')"
	@ls dist/*.whl

check: lint typecheck test build

# The self-contained bundle (PyInstaller, one folder: dist/goodbuddy-kb/goodbuddy-kb) and the Linux
# packages made from it: dist/goodbuddy-kb_VERSION_ARCH.deb and dist/goodbuddy-kb-VERSION-linux-ARCH.tar.gz.
# See packaging/README.md.
VERSION = $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
dist: $(STAMP)
	test -x $(BIN)/pyinstaller || $(BIN)/python -m pip install --quiet -e ".[dist]"
	rm -rf build/pyinstaller dist/goodbuddy-kb
	$(BIN)/pyinstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller packaging/goodbuddy-kb.spec
	packaging/build_packages.sh dist/goodbuddy-kb dist $(VERSION)
	@du -sh dist/goodbuddy-kb dist/*.deb dist/*.tar.gz

# Installs the packages `make dist` made and uses them as a new user would (the .deb needs root);
# the two run side by side.
test-install:
	packaging/test_install.sh $(VERSION) dist $(PYTHON)

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,bench]"
	QT_QPA_PLATFORM=offscreen $(BIN)/python bench/ipc.py
	QT_QPA_PLATFORM=offscreen $(BIN)/python bench/sync.py
	$(BIN)/python bench/chunking.py
	$(BIN)/python bench/lexical.py
	$(BIN)/python -m pip install --quiet --no-deps "rapidocr-onnxruntime>=1.4"
	$(BIN)/python bench/ocr.py

# Every main screen and dialog at 800x600 and 1400x900, light and dark, zh-CN and en.
screenshots: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python scripts/screenshots.py artifacts/screens

eval: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/goodbuddy-kb eval retrieval --ablation

# Every dataset under $(BENCHMARKS) plus the fixtures, with the bundled model; imports are kept in
# $(EVAL_WORK) so a second run only re-asks the questions. Beside them, a no-answer twin of each
# set in $(NOANSWER_FROM) (bench/derive_noanswer.py: 120 articles taken out, one question of each
# kept unanswerable), so "nothing relevant enough" is measured on more than cmrc2018's.
BENCHMARKS ?= ../shared/benchmarks
EVAL_WORK ?= .eval-work
NOANSWER_FROM ?= drcd-dev
eval-all: $(STAMP)
	for s in $(NOANSWER_FROM); do \
		test -d $(EVAL_WORK)/derived/$$s-noanswer || $(BIN)/python bench/derive_noanswer.py \
			$(BENCHMARKS)/$$s $(EVAL_WORK)/derived/$$s-noanswer --remove 120 || exit 1; \
	done
	QT_QPA_PLATFORM=offscreen $(BIN)/goodbuddy-kb eval retrieval --ablation --provider local \
		--datasets-in $(BENCHMARKS) --datasets-in $(EVAL_WORK)/derived --work-dir $(EVAL_WORK)

clean:
	rm -rf dist build .mypy_cache .pytest_cache .ruff_cache
