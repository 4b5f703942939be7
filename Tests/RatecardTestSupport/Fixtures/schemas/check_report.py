#!/usr/bin/env python3
"""Validate a SARIF or JUnit XML report against the schemas stored next to this script.

Usage:
    python3 check_report.py sarif FILE   # JSON Schema check against sarif-schema-2.1.0.json
    python3 check_report.py junit FILE   # XSD check against junit.xsd, then a junitparser summary

Exit status: 0 when FILE is valid, 1 when it is not (the errors are printed),
2 for a usage error or a missing dependency.

Needs: pip install jsonschema xmlschema junitparser
Nothing is fetched from the network: the SARIF schema is loaded from disk and any
$ref that is not inside it is refused instead of being downloaded.
"""

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SARIF_SCHEMA = HERE / "sarif-schema-2.1.0.json"
JUNIT_XSD = HERE / "junit.xsd"

# URLs under which SARIF 2.1.0 logs and tools refer to this schema. All of them
# resolve to the local copy; anything else is refused.
SARIF_ALIASES = (
    "https://json.schemastore.org/sarif-2.1.0.json",
    "https://json.schemastore.org/sarif-2.1.0",
    "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json",
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/sarif-schema-2.1.0.json",
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/cos02/schemas/sarif-schema-2.1.0.json",
)

MAX_ERRORS = 20


def fail(lines):
    for line in lines:
        print(line)
    return 1


def check_sarif(path):
    try:
        import jsonschema
        from referencing import Registry, Resource
        from referencing.exceptions import NoSuchResource
    except ImportError as exc:
        print(f"missing dependency: {exc} (pip install jsonschema)", file=sys.stderr)
        return 2

    schema = json.loads(SARIF_SCHEMA.read_bytes())
    resource = Resource.from_contents(schema)

    def refuse_remote(uri):
        # Called only for URIs not registered below; never touch the network.
        raise NoSuchResource(ref=uri)

    registry = Registry(retrieve=refuse_remote).with_resources(
        [(schema.get("$id", SARIF_ALIASES[0]), resource)]
        + [(alias, resource) for alias in SARIF_ALIASES]
    )

    try:
        instance = json.loads(Path(path).read_bytes())
    except (OSError, ValueError) as exc:
        return fail([f"INVALID SARIF: {path}: cannot read JSON: {exc}"])

    cls = jsonschema.validators.validator_for(schema)
    validator = cls(schema, registry=registry, format_checker=cls.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [f"INVALID SARIF: {path}: {len(errors)} schema error(s)"]
        for err in errors[:MAX_ERRORS]:
            lines.append(f"  at {err.json_path}: {err.message}")
        if len(errors) > MAX_ERRORS:
            lines.append(f"  ... {len(errors) - MAX_ERRORS} more")
        best = jsonschema.exceptions.best_match(errors)
        lines.append(f"  best match: at {best.json_path}: {best.message}")
        return fail(lines)

    runs = instance.get("runs", [])
    results = sum(len(run.get("results") or []) for run in runs)
    print(f"VALID SARIF: {path} (version {instance.get('version')}, {len(runs)} run(s), {results} result(s))")
    return 0


def check_junit(path):
    try:
        import xmlschema
        from junitparser import JUnitXml, TestSuite, Failure, Error, Skipped
    except ImportError as exc:
        print(f"missing dependency: {exc} (pip install xmlschema junitparser)", file=sys.stderr)
        return 2

    schema = xmlschema.XMLSchema(str(JUNIT_XSD))
    try:
        errors = list(schema.iter_errors(str(path)))
    except Exception as exc:  # malformed XML, unreadable file
        return fail([f"INVALID JUnit: {path}: cannot parse XML: {exc}"])
    if errors:
        lines = [f"INVALID JUnit: {path}: {len(errors)} schema error(s)"]
        for err in errors[:MAX_ERRORS]:
            where = err.path or "?"
            lines.append(f"  at {where}: {err.reason or err.message}")
        if len(errors) > MAX_ERRORS:
            lines.append(f"  ... {len(errors) - MAX_ERRORS} more")
        return fail(lines)

    try:
        xml = JUnitXml.fromfile(str(path))
    except Exception as exc:
        return fail([f"INVALID JUnit: {path}: junitparser could not read it: {exc}"])

    # The root may be <testsuites> or a single <testsuite>; suites may nest.
    def cases(suite):
        for child in suite:
            if isinstance(child, TestSuite):
                yield from cases(child)
            else:
                yield child

    suites = [xml] if isinstance(xml, TestSuite) else list(xml)
    all_cases = [case for suite in suites for case in cases(suite)]

    def count(kind):
        return sum(1 for case in all_cases if any(isinstance(r, kind) for r in case.result))

    print(
        f"VALID JUnit: {path}: {len(suites)} suite(s), {len(all_cases)} test case(s), "
        f"{count(Failure)} failure(s), {count(Error)} error(s), {count(Skipped)} skipped"
    )
    return 0


def main(argv):
    if len(argv) != 3 or argv[1] not in ("sarif", "junit"):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    kind, path = argv[1], argv[2]
    return check_sarif(path) if kind == "sarif" else check_junit(path)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
