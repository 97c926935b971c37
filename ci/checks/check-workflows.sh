#!/usr/bin/env bash
# The rules every GitHub workflow of this repository keeps (docs/security.md), checked on the CPU
# (ctest: bankcheck_workflows; ci/checks/check-workflows_test.sh tests the checker):
#   - a top-level `permissions:` (least privilege: the token gets only what is listed);
#   - every `uses:` of an action or workflow from another repository pinned by its full commit SHA
#     (40 hex digits) with the version in a comment (`uses: actions/checkout@<sha>  # v4.4.0`): a
#     tag or branch can be moved to other code, which would run on the GPU runner. A placeholder
#     (`@<commit>`, in a template to copy) is allowed: such a file cannot run until it is filled in;
#   - a `concurrency:` group in a workflow that runs on a self-hosted runner (the scarce GPU runner)
#     or calls bankcheck-suite.yml;
#   - no job that checks out code (actions/checkout) or runs an action of this repository (`./...`)
#     holds a token that may write (`security-events: write`, `contents: write`, `write-all`, ...,
#     its own or the top-level `permissions:` it inherits): what it builds and runs could use that
#     right. Writing (code scanning's SARIF upload, publishing a release) is a job of its own that
#     downloads the artifact it needs and runs none of the project's code. A job that calls a
#     reusable workflow passes its permissions on; the called workflow's jobs are checked there.
#   - a job that publishes (holds `id-token: write`, the OIDC token, or `contents: write`) holds
#     only one of the two, runs at most one action from outside GitHub's own (`actions/`, `github/`:
#     a third-party action or a docker:// image, the one publishing action), and names an
#     `environment:` (protected in the repository's settings: limited to the release tags): a
#     third-party action in such a job holds the right too;
#   - a sharded workflow (a job whose matrix has `shard`, docs/ci.md "Sharding"): a reusable one
#     takes the input `shards`; each shard job is in a concurrency group of its own (its group
#     names matrix.shard: one group for all would let the matrix's jobs cancel each other); a merge
#     job (no matrix) needs the shard jobs; no shard job may write, and the one job that may write
#     is the merge or comes after every job that needs the shards (the upload after the merge); a
#     merge job that runs bankcheck-merge passes it --shards (every shard there, each reported all
#     the cases of its plan).
#     These two rules read the YAML with python3's PyYAML (Debian: python3-yaml).
#
#   ci/checks/check-workflows.sh [FILE...]   default: .github/workflows/ and examples/.github/workflows/
# Exit 0: all hold; 1: a rule is broken (each one printed as FILE:LINE: what); 2: no workflow file.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

files=("$@")
if ((${#files[@]} == 0)); then
  shopt -s nullglob
  files=("$root"/.github/workflows/*.y*ml "$root"/examples/.github/workflows/*.y*ml)
fi
((${#files[@]})) || { echo "bankcheck: error: no workflow files to check" >&2; exit 2; }

status=0
broken() {
  echo "$1: $2" >&2
  status=1
}

# privilege_split <file>: the jobs that check out code hold no write permission (above); prints each
# such job as FILE:LINE: what, and fails.
privilege_split() {
  python3 - "$1" <<'PY'
import re
import sys

try:
    import yaml
except ImportError:
    sys.exit(f"{sys.argv[1]}: bankcheck: error: checking the jobs' permissions needs python3's PyYAML "
             "(Debian: apt-get install python3-yaml; ci/jobs/install-deps.sh installs it)")

path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    text = f.read()
try:
    workflow = yaml.safe_load(text)
    root = yaml.compose(text)
except yaml.YAMLError as error:
    sys.exit(f"{path}: not valid YAML: {error}")
jobs = workflow.get("jobs") if isinstance(workflow, dict) else None
if not isinstance(jobs, dict):
    sys.exit(0)
lines = {}
for key, value in root.value:
    if key.value == "jobs":
        lines = {job.value: job.start_mark.line + 1 for job, _ in value.value}


def writes(permissions):
    if isinstance(permissions, str):
        return ["write-all"] if permissions == "write-all" else []
    if isinstance(permissions, dict):
        return [f"{name}: write" for name, level in permissions.items() if level == "write"]
    return []


broken = False
for name, job in jobs.items():
    if not isinstance(job, dict) or "uses" in job:
        continue  # a reusable workflow's call: its own jobs are checked in its file
    runs_code = [step.get("uses", "") for step in job.get("steps") or [] if isinstance(step, dict)
                 and str(step.get("uses", "")).startswith(("actions/checkout@", "./"))]
    granted = writes(job["permissions"] if "permissions" in job else workflow.get("permissions"))
    if runs_code and granted:
        print(f"{path}:{lines.get(name, 1)}: job '{name}' runs the repository's code ({runs_code[0]}) with a "
              f"token that may write ({', '.join(granted)}): move what writes to a job of its own that "
              "downloads an artifact and runs no project code", file=sys.stderr)
        broken = True


# Publishing jobs (above): one right, at most one action outside GitHub's own, an environment.
for name, job in jobs.items():
    if not isinstance(job, dict) or "uses" in job:
        continue
    granted = writes(job["permissions"] if "permissions" in job else workflow.get("permissions"))
    oidc = "write-all" in granted or "id-token: write" in granted
    contents = "write-all" in granted or "contents: write" in granted
    if not (oidc or contents):
        continue
    held = ", ".join(g for g in granted if g in ("write-all", "id-token: write", "contents: write"))
    if oidc and contents:
        print(f"{path}:{lines.get(name, 1)}: job '{name}' holds both the OIDC token (id-token: write) and "
              "contents: write: give each its own job", file=sys.stderr)
        broken = True
    outside = [str(step.get("uses")) for step in job.get("steps") or [] if isinstance(step, dict) and
               step.get("uses") and not str(step.get("uses")).startswith(("actions/", "github/", "./"))]
    if len(outside) > 1:
        print(f"{path}:{lines.get(name, 1)}: job '{name}' holds {held} and runs {len(outside)} actions from "
              f"outside GitHub's own ({', '.join(outside)}): each would hold the right; keep the one that "
              "publishes and move the others to a job without it", file=sys.stderr)
        broken = True
    if not job.get("environment"):
        print(f"{path}:{lines.get(name, 1)}: job '{name}' holds {held} without an 'environment:': publish in "
              "a protected environment (limited to the release tags in the repository's settings)", file=sys.stderr)
        broken = True


# The shard matrix's rules (above).


def problem(job, what):
    global broken
    print(f"{path}:{lines.get(job, 1)}: job '{job}' {what}", file=sys.stderr)
    broken = True


def grants(job):
    return writes(job["permissions"] if "permissions" in job else workflow.get("permissions"))


def needs(job):
    value = job.get("needs", [])
    return [value] if isinstance(value, str) else list(value)


def after(name, other, seen=()):  # whether job `name` needs `other`, directly or through others
    direct = needs(jobs.get(name) or {})
    return other in direct or any(after(n, other, seen + (name,)) for n in direct if n not in seen)


shard_jobs = [n for n, j in jobs.items() if isinstance(j, dict) and "shard" in
              ((j.get("strategy") or {}).get("matrix") or {})]
if shard_jobs:
    trigger = workflow.get("on", workflow.get(True))
    call = trigger.get("workflow_call") if isinstance(trigger, dict) else None
    if isinstance(call, dict) and "shards" not in (call.get("inputs") or {}):
        problem(shard_jobs[0], "is a shard matrix, but the reusable workflow has no input 'shards'")
    for name in shard_jobs:
        group = str((jobs[name].get("concurrency") or {}).get("group", ""))
        if "matrix.shard" not in group:
            problem(name, "is a shard matrix without a concurrency group per shard (its group must name "
                    "matrix.shard, or the shards cancel each other)")
        if grants(jobs[name]):
            problem(name, f"is a shard matrix with a token that may write ({', '.join(grants(jobs[name]))}): "
                    "only the job after the merge may")
    merges = [n for n, j in jobs.items() if isinstance(j, dict) and n not in shard_jobs
              and any(s in needs(j) for s in shard_jobs) and not (j.get("strategy") or {}).get("matrix")]
    if not merges:
        problem(shard_jobs[0], "is a shard matrix that no merge job (one without a matrix) needs")
    for name in merges:
        for step in jobs[name].get("steps") or []:
            run = str(step.get("run", "")) if isinstance(step, dict) else ""
            if re.search(r"bankcheck-merge(\.sh)?(\s|$)", run) and "--shards" not in run:
                problem(name, "runs bankcheck-merge without --shards: a shard missing, or one that did not "
                        "report its cases, would not fail the merge")
    writers = [n for n, j in jobs.items() if isinstance(j, dict) and "uses" not in j and grants(j)]
    if len(writers) > 1:
        problem(writers[1], f"may write, as '{writers[0]}' may: in a sharded workflow one job writes")
    for name in writers:
        for merge in merges:
            if merge != name and not after(name, merge):
                problem(name, f"may write but does not come after the merge job '{merge}' (needs it)")
sys.exit(1 if broken else 0)
PY
}

for file in "${files[@]}"; do
  [[ -f "$file" ]] || { echo "bankcheck: error: no such workflow file: $file" >&2; exit 2; }
  grep -qE '^permissions:' "$file" ||
    broken "$file" "no top-level 'permissions:' (give the token only what the jobs need, e.g. contents: read)"
  # Lines that are not comments only.
  if grep -vE '^\s*#' "$file" | grep -E 'self-hosted|bankcheck-suite\.yml' >/dev/null; then  # not -q: an early exit fails the pipe (pipefail)
    grep -qE '^\s*concurrency:' "$file" ||
      broken "$file" "runs on a self-hosted (GPU) runner but has no 'concurrency:' group"
  fi
  privilege_split "$file" || status=1
  while IFS= read -r entry; do
    line="${entry%%:*}" text="${entry#*:}"
    value="${text#*uses:}"
    comment=""
    [[ "$value" != *"#"* ]] || comment="${value#*#}"
    value="${value%%#*}"
    value="$(sed -E "s/^[[:space:]]*['\"]?//; s/['\"]?[[:space:]]*\$//" <<<"$value")"
    case "$value" in
      ./*) continue ;;                       # this repository's own workflow or action
      docker://*@sha256:*) continue ;;       # an image by digest
    esac
    ref="${value##*@}"
    if [[ "$value" != *@* ]]; then
      broken "$file:$line" "'uses: $value' names no version: pin it by commit SHA (@<40 hex digits>  # vX.Y.Z)"
    elif [[ "$ref" =~ ^\<[A-Za-z0-9\ _-]+\>$ ]]; then
      continue                               # a template's placeholder, filled in by whoever copies it
    elif [[ ! "$ref" =~ ^[0-9a-f]{40}$ ]]; then
      broken "$file:$line" "'uses: $value' is not pinned by a full commit SHA (40 hex digits; the version in a comment)"
    elif [[ ! "$comment" =~ [0-9] ]]; then
      broken "$file:$line" "'uses: $value' has no version in a comment (e.g. '  # v4.4.0')"
    fi
  done < <(grep -nE '^\s*(-\s+)?uses:' "$file" || true)
done
((status == 0)) && echo "bankcheck: ${#files[@]} workflow file(s): permissions, privilege split, publishing jobs, pinned actions, concurrency, shard matrices hold"
exit "$status"
