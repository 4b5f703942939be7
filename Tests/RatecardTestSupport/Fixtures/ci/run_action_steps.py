"""Runs a composite action's `run:` steps the way a GitHub runner does, without GitHub.

Usage: run_action_steps.py ACTION_YML WORKSPACE NAME=VALUE...
The NAME=VALUE pairs are the action's inputs (the rest take their defaults). Steps that `uses:`
another action are skipped, as are steps whose `if:` is false for these inputs (only the
`inputs.X == ''` and `inputs.X != ''` forms are understood). `${{ inputs.X }}` and
`${{ steps.S.outputs.O }}` are replaced; each step runs under `bash --noprofile --norc -eo pipefail`
in its working directory with GITHUB_ENV, GITHUB_OUTPUT and RUNNER_TEMP set, and GITHUB_ENV's
lines are carried into later steps. Prints the steps' output; exits with the first failing
step's status (0 when all pass).
"""
import os
import re
import subprocess
import sys
import tempfile

import yaml

action_path, workspace = sys.argv[1], sys.argv[2]
with open(action_path, encoding="utf-8") as f:
    action = yaml.safe_load(f)
inputs = {name: str(spec.get("default", "")) for name, spec in action.get("inputs", {}).items()}
for pair in sys.argv[3:]:
    name, value = pair.split("=", 1)
    assert name in inputs, f"unknown input {name}"
    inputs[name] = value
outputs = {}


def expand(text):
    def value(match):
        expression = match.group(1).strip()
        if expression.startswith("inputs."):
            return inputs[expression[len("inputs."):]]
        step = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
        if step:
            return outputs.get(step.group(1), {}).get(step.group(2), "")
        raise SystemExit(f"cannot evaluate ${{{{ {expression} }}}}")
    return re.sub(r"\$\{\{(.*?)\}\}", value, str(text))


def condition(text):
    if text is None:
        return True
    match = re.fullmatch(r"\s*inputs\.([\w-]+)\s*(==|!=)\s*''\s*", text)
    if not match:
        raise SystemExit(f"cannot evaluate if: {text}")
    empty = inputs[match.group(1)] == ""
    return empty if match.group(2) == "==" else not empty


temp = tempfile.mkdtemp()
env = dict(os.environ, RUNNER_TEMP=temp, GITHUB_WORKSPACE=workspace, GITHUB_ACTION_PATH=os.path.dirname(os.path.abspath(action_path)))
for index, step in enumerate(action["runs"]["steps"]):
    if "uses" in step or not condition(step.get("if")):
        continue
    env_file, output_file = os.path.join(temp, f"env-{index}"), os.path.join(temp, f"output-{index}")
    open(env_file, "w").close()
    open(output_file, "w").close()
    step_env = dict(env, GITHUB_ENV=env_file, GITHUB_OUTPUT=output_file)
    step_env.update({name: expand(value) for name, value in step.get("env", {}).items()})
    folder = os.path.join(workspace, expand(step.get("working-directory", ".")))
    script = os.path.join(temp, f"step-{index}.sh")
    with open(script, "w") as f:
        f.write(expand(step["run"]))
    result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=folder, env=step_env)
    with open(env_file) as f:
        env.update(line.split("=", 1) for line in f.read().splitlines() if "=" in line)
    with open(output_file) as f:
        outputs[step.get("id", str(index))] = dict(line.split("=", 1) for line in f.read().splitlines() if "=" in line)
    for name, value in outputs[step.get("id", str(index))].items():
        print(f"output {step.get('id', index)}.{name}={value}", file=sys.stderr)
    if result.returncode != 0:
        print(f"step '{step.get('name', index)}' failed with {result.returncode}", file=sys.stderr)
        sys.exit(result.returncode)
