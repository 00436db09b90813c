#!/usr/bin/env bash
# Writes Tests/Fixtures/jrnl-4.6-export.json with the real jrnl (PyPI), in a private
# virtualenv and a throwaway journal: the fixture the jrnl import is tested against.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet 'jrnl==4.6'
cat > "$work/config.yaml" <<YAML
colors: {body: none, date: none, tags: none, title: none}
default_hour: 9
default_minute: 0
editor: ''
encrypt: false
highlight: true
indent_character: '|'
journals: {default: {journal: $work/journal.txt}}
linewrap: 79
tagsymbols: '#@'
template: false
timeformat: '%Y-%m-%d %H:%M'
version: v4.6
YAML
jrnl() { "$work/venv/bin/jrnl" --config-file "$work/config.yaml" "$@"; }
jrnl "2026-11-01 20:00: First @psilocybin session. The room felt enormous and safe; I cried for a long time and then laughed."
jrnl "2026-11-08 19:30: Integration walk. Noticed how much lighter my shoulders are. Talked with @mdma friend about boundaries."
jrnl "2026-11-15 21:00: Quiet evening, no session. Wrote a letter I won't send, with \"quotes\", commas, and a second paragraph."
jrnl "2026-11-20 08:15: Ünïcödé check — ✨ and 日本語 in the title. Body line two."
jrnl --format json > "$root/Tests/Fixtures/jrnl-4.6-export.json"
