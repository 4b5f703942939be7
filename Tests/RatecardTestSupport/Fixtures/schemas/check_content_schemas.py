"""Checks content files against the JSON Schemas `ratecard schema` writes.

Usage: check_content_schemas.py SCHEMAS KINDS_JSON --good ROOT... --bad CASE... [--some CASE...]
  KINDS_JSON maps each kind to the globs of the files it describes.
  --good: every file of each content root under a kind's glob must pass its schema.
  --bad: each corpus case (Fixtures/bad/*.case) writes the file its `at:` names; that file must
         fail its schema at that line and column.
  --some: cases of rules a schema can only partly say (an id's form but not that it equals the
         file's name, a date's form but not that the day exists): reported, not failed.
YAML is read as YAML 1.2's core schema reads it (what editors' YAML servers use): only
true/false are booleans, dates stay text, numbers are exact decimals. Prints one line per
finding and a count line; exits 1 if any check failed.
"""
import decimal
import fnmatch
import json
import os
import re
import sys

import jsonschema
import yaml


class Core12Loader(yaml.SafeLoader):
    pass


Core12Loader.yaml_implicit_resolvers = {}
Core12Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
Core12Loader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789"))
Core12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$"), list("-+.0123456789"))
Core12Loader.add_implicit_resolver("tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])
Core12Loader.add_constructor("tag:yaml.org,2002:int", lambda loader, node: int(loader.construct_scalar(node)))
Core12Loader.add_constructor("tag:yaml.org,2002:float", lambda loader, node: decimal.Decimal(loader.construct_scalar(node)))


def yaml_text(path, text):
    """The YAML of a file and the line it starts on (front matter for .md)."""
    if not path.endswith(".md"):
        return text, 0
    lines = text.split("\n")
    end = lines.index("---", 1)
    return "\n".join(lines[1:end]) + "\n", 1


def node_at(node, path):
    for step in path:
        if isinstance(node, yaml.MappingNode):
            node = next(value for key, value in node.value if key.value == step)
        else:
            node = node.value[step]
    return node


def resolve(error, branch):
    """A branch of a schema, with a local `$ref` followed."""
    ref = branch.get("$ref") if isinstance(branch, dict) else None
    return resolve(error, ROOTS[0][ref.split("/")[-1]]) if ref else (branch if isinstance(branch, dict) else {})


# The `$defs` of the schema being checked (set before each file).
ROOTS = [{}]


def failures(validator, path, text):
    """Each schema error of a file as (line, column, message), 1-based."""
    body, offset = yaml_text(path, text)
    data = yaml.load(body, Loader=Core12Loader)
    root = yaml.compose(body, Loader=Core12Loader)
    found = []
    ROOTS[0] = validator.schema.get("$defs", {})
    for error in validator.iter_errors(data):
        node = node_at(root, error.absolute_path)
        if isinstance(node, yaml.MappingNode) and error.validator is None:
            # A false schema (a field another rules out) is about that field's value.
            node = next((value for _, value in node.value if isinstance(value, yaml.ScalarNode) and value.value == error.instance), node)
        marks = [node.start_mark]
        if error.validator == "type" and error.instance is None:
            # A required field written with no value: validate reads it as absent and says so
            # where the mapping starts (optional fields allow null in the schemas).
            marks = [node_at(root, list(error.absolute_path)[:-1]).start_mark]
        if error.validator == "additionalProperties":
            known = error.schema.get("properties", {})
            marks = [key.start_mark for key, _ in node.value if key.value not in known]
        if error.validator == "oneOf" and isinstance(node, yaml.MappingNode):
            # A mapping none of the shapes fits: the place is a key that no shape knows (the
            # bridge's `{enumm: [...]}`), as validate says; else the mapping.
            known = set()
            for branch in error.validator_value:
                known.update(resolve(error, branch).get("properties", {}))
            marks = [key.start_mark for key, _ in node.value if key.value not in known] or marks
        for mark in marks:
            found.append((mark.line + 1 + offset, mark.column + 1, error.message))
    return found


def main():
    schemas_dir, kinds_json = sys.argv[1], sys.argv[2]
    mode, roots, cases, some = None, [], [], set()
    for arg in sys.argv[3:]:
        if arg in ("--good", "--bad", "--some"):
            mode = arg
        elif mode == "--good":
            roots.append(arg)
        else:
            cases.append(arg)
            if mode == "--some":
                some.add(arg)
    kinds = json.loads(kinds_json)
    validators = {}
    for kind in kinds:
        with open(os.path.join(schemas_dir, kind + ".schema.json")) as f:
            schema = json.load(f, parse_float=decimal.Decimal)
        jsonschema.Draft202012Validator.check_schema(json.loads(json.dumps(schema, default=float)))
        validators[kind] = jsonschema.Draft202012Validator(schema)

    def kind_of(relative):
        return next((k for k, globs in kinds.items() if any(fnmatch.fnmatch(relative, g) for g in globs)), None)

    bad = 0
    passed, per_kind = 0, {}
    for root in roots:
        for folder, _, files in os.walk(root):
            for name in sorted(files):
                full = os.path.join(folder, name)
                relative = os.path.relpath(full, root)
                kind = kind_of(relative)
                if kind is None or relative.startswith("."):
                    continue
                with open(full, encoding="utf-8") as f:
                    found = failures(validators[kind], relative, f.read())
                if found:
                    bad += 1
                    print(f"GOOD-FAILS {relative}: {found}")
                else:
                    passed += 1
                    per_kind[kind] = per_kind.get(kind, 0) + 1
    caught = 0
    for case in cases:
        with open(case, encoding="utf-8") as f:
            text = f.read()
        at = re.search(r"^at: (.+):(\d+):(\d+)$", text, re.M)
        path, line, column = at.group(1), int(at.group(2)), int(at.group(3))
        sections = re.split(r"^--- ", text, flags=re.M)
        written = [s for s in sections[1:] if s.startswith("write " + path + "\n")]
        kind = kind_of(path)
        if not written or kind is None:
            print(f"SKIPPED {os.path.basename(case)}")
            continue
        body = written[-1].split("\n", 1)[1]
        if body.endswith("\n"):
            body = body[:-1]
        found = failures(validators[kind], path, body)
        if any((l, c) == (line, column) for l, c, _ in found):
            caught += 1
            print(f"CAUGHT {os.path.basename(case)} {path}:{line}:{column}")
        elif case in some:
            print(f"BEYOND-SCHEMA {os.path.basename(case)} {path}:{line}:{column}")
        else:
            bad += 1
            print(f"MISSED {os.path.basename(case)} {path}:{line}:{column}: {found}")
    print(f"good files passed: {passed} {json.dumps(per_kind, sort_keys=True)}; bad cases caught: {caught}; failures: {bad}")
    sys.exit(1 if bad else 0)


main()
