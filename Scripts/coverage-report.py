#!/usr/bin/env python3
"""Turns `llvm-cov export` JSON into Docs/COVERAGE.md (Scripts/coverage).

    coverage-report.py EXPORT.json ROOT OUT.md MINIMUM HEADER...

EXPORT.json is `llvm-cov export` over the journal binary and the test binary, restricted to
ROOT/Sources; OUT.md is written; MINIMUM is the line coverage the total must reach (a percent);
HEADER is the lines that say how and when the measure was made. Writes every public function
no test runs to public-unrun.md beside EXPORT.json (OUT.md lists only the worst targets' when
there are more than LIST_LIMIT). Prints the table and the total to stderr, and the total line
coverage (a percent, two decimals) to stdout.
"""
import collections
import json
import os
import re
import subprocess
import sys

export_path, root, out_path, minimum = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
header = sys.argv[5:]
sources = os.path.join(root, "Sources") + os.sep
# Code that only tests (and fuzzers) run, and that no person runs: counted nowhere.
test_only = {"JournalTestSupport", "CTestSupport", "JournalFuzzHarness"}
# A longer list of public functions no test runs is cut to the targets with the most.
LIST_LIMIT = 150

data = json.load(open(export_path))["data"][0]


def target_of(filename):
    """The target a file belongs to (Sources/<target>/...), or None if it is not ours."""
    if not filename.startswith(sources):
        return None
    target = filename[len(sources):].split(os.sep, 1)[0]
    return None if target in test_only else target


# Per target: lines and functions, summed over its files.
Totals = collections.namedtuple("Totals", "lines covered functions called")
targets = collections.defaultdict(lambda: [0, 0, 0, 0])
for entry in data["files"]:
    target = target_of(entry["filename"])
    if target is None:
        continue
    s = entry["summary"]
    row = targets[target]
    row[0] += s["lines"]["count"]
    row[1] += s["lines"]["covered"]
    row[2] += s["functions"]["count"]
    row[3] += s["functions"]["covered"]
rows = {name: Totals(*row) for name, row in targets.items()}
total = Totals(*(sum(r[i] for r in rows.values()) for i in range(4)))
# A measure of nothing is no measure: a source path that matched no file (a checkout reached
# through a symbolic link, a moved folder) would otherwise read as 100 % and pass the gate.
if total.lines < 1000:
    sys.exit(f"journal coverage: only {total.lines} lines of Sources/ measured; "
             "the profiles do not name this checkout's files")


def percent(part, whole):
    return 100.0 * part / whole if whole else 100.0


# The public functions no test runs. A function record's first region starts at its body's
# opening brace; the declaration is the nearest line at or above it that starts with a
# declaration keyword (after attributes and modifiers). journal has no `public extension`, so
# a function is public exactly when its own declaration says `public` or `open`.
DECLARATION = re.compile(
    r"^\s*(?P<modifiers>(?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|open|internal|private|fileprivate|package|static|class|final|override"
    r"|mutating|nonmutating|convenience|required|nonisolated|dynamic|lazy|indirect)"
    r"(?:\([^)]*\))?\s+)*)"
    r"(?:func|init|deinit|subscript|var|let)\b")
source_cache = {}


def public_declaration(filename, line, column):
    """The line of the declaration of the function whose body starts at (line, column), if it
    is declared public; else None."""
    if filename not in source_cache:
        with open(filename, encoding="utf-8") as handle:
            source_cache[filename] = handle.read().split("\n")
    lines = source_cache[filename]
    index = line - 1
    if not 0 <= index < len(lines):
        return None
    # The body's line up to its brace, then the lines above it: a signature over several
    # lines, or the property above an accessor (`get {`).
    text = lines[index][: column - 1]
    for index in range(index, max(index - 30, -1), -1):
        match = DECLARATION.match(text if index == line - 1 else lines[index])
        if match:
            public = re.search(r"\b(public|open)\b", match.group("modifiers"))
            return index + 1 if public else None
    return None


records = []
for function in data["functions"]:
    filename = function["filenames"][0] if function["filenames"] else ""
    target = target_of(filename)
    if target is None or not function["regions"]:
        continue
    start = function["regions"][0]
    records.append((function["name"], function["count"], target, filename, start[0], start[1]))

demangled = subprocess.run(
    ["swift", "demangle", "--simplified", "--compact"],
    input="\n".join(r[0] for r in records) + "\n", capture_output=True, text=True,
    check=True).stdout.split("\n")
public_total = 0
public_called = 0
public_by_target = collections.Counter()
unexercised = collections.defaultdict(list)
seen = set()
for (mangled, count, target, filename, line, column), name in zip(records, demangled):
    # Closures are parts of their function, and a stored property's initial value part of
    # the initializer: not functions a caller can name.
    if "closure #" in name or name.startswith("variable initialization expression"):
        continue
    line = public_declaration(filename, line, column)
    if line is None:
        continue
    key = (filename, line, name)
    if key in seen:
        continue
    seen.add(key)
    public_total += 1
    public_by_target[target] += 1
    if count > 0:
        public_called += 1
    else:
        unexercised[target].append((os.path.relpath(filename, root), line, name))

# The C that journal runs (not instrumented: SwiftPM builds C targets without coverage).
c_lines = 0
for target in sorted(os.listdir(os.path.join(root, "Sources"))):
    directory = os.path.join(root, "Sources", target)
    if target in test_only or not os.path.isdir(directory):
        continue
    for name in os.listdir(directory):
        if name.endswith(".c"):
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                c_lines += sum(1 for _ in handle)

# The report.
line_percent = percent(total.covered, total.lines)
unrun = public_total - public_called
out = ["# Test coverage", ""]
out += header
out += [
    "",
    "Line coverage of journal's own code (`Sources/`, without the test support",
    "JournalTestSupport, CTestSupport and JournalFuzzHarness), as `llvm-cov` counts it over",
    "the journal binary and the test binary together: the tests' own process and every",
    "process of the binary that they start each write a profile, and the profiles are",
    "merged. A line is covered when some test made it run. The C shims",
    f"({c_lines:,} lines of C) are not instrumented and not counted.",
    "",
    f"**Total: {line_percent:.1f} % of {total.lines:,} lines** "
    f"(the gate is {minimum:g} %: {'met' if line_percent >= minimum else 'not met'}); "
    f"{percent(total.called, total.functions):.1f} % of {total.functions:,} functions; "
    f"{public_called:,} of {public_total:,} public functions run by a test "
    f"({percent(public_called, public_total):.1f} %).",
    "",
    "| target | lines | lines covered | line coverage | functions | function coverage |",
    "|---|---:|---:|---:|---:|---:|",
]
for name in sorted(rows, key=lambda n: percent(rows[n].covered, rows[n].lines)):
    r = rows[name]
    out.append(f"| {name} | {r.lines:,} | {r.covered:,} | {percent(r.covered, r.lines):.1f} % "
               f"| {r.functions:,} | {percent(r.called, r.functions):.1f} % |")
out.append(f"| **total** | **{total.lines:,}** | **{total.covered:,}** | **{line_percent:.1f} %** "
           f"| **{total.functions:,}** | **{percent(total.called, total.functions):.1f} %** |")
out += [
    "",
    "## Public functions no test runs",
    "",
    f"{unrun:,} of {public_total:,}: declared `public` (or `open`) and run by no test, in the",
    "test process or in the binary. Closures are counted with their function; a computed",
    "property is its getter or setter.",
    "",
]
# Targets with the most public functions no test runs first.
worst = sorted(unexercised, key=lambda t: (-len(unexercised[t]), t))
out += ["| target | public functions | no test runs | run |", "|---|---:|---:|---:|"]
out += [f"| {t} | {public_by_target[t]:,} | {len(unexercised[t]):,} "
        f"| {percent(public_by_target[t] - len(unexercised[t]), public_by_target[t]):.1f} % |"
        for t in worst]
out.append("")
listing = []
for target in worst:
    listing.append(f"### {target} ({len(unexercised[target])})")
    listing.append("")
    listing += [f"- `{path}:{line}` {name.replace('`', '')}"
                for path, line, name in sorted(unexercised[target])]
    listing.append("")
# The whole list, always, beside the export (a run's scratch directory).
full_path = os.path.join(os.path.dirname(os.path.abspath(export_path)), "public-unrun.md")
with open(full_path, "w") as handle:
    handle.write("\n".join(listing).rstrip("\n") + "\n")
listed = worst
if unrun > LIST_LIMIT:
    listed, count = [], 0
    for target in worst:
        if count + len(unexercised[target]) > LIST_LIMIT and listed:
            break
        listed.append(target)
        count += len(unexercised[target])
    shown = "the target" if len(listed) == 1 else f"the {len(listed)} targets"
    out += [f"The whole list is long ({unrun:,}): here are those of {shown} with the most;",
            f"every one is in `{os.path.relpath(full_path, root)}` after a run.", ""]
for target in listed:
    out.append(f"### {target} ({len(unexercised[target])})")
    out.append("")
    out += [f"- `{path}:{line}` {name.replace('`', '')}"
            for path, line, name in sorted(unexercised[target])]
    out.append("")
with open(out_path, "w") as handle:
    handle.write("\n".join(out).rstrip("\n") + "\n")

width = max(len(n) for n in rows)
for name in sorted(rows):
    r = rows[name]
    print(f"{name:<{width}}  {percent(r.covered, r.lines):5.1f} % of {r.lines:6,} lines",
          file=sys.stderr)
print(f"{'total':<{width}}  {line_percent:5.1f} % of {total.lines:6,} lines; "
      f"public functions run: {public_called} of {public_total}", file=sys.stderr)
print(f"{line_percent:.2f}")
