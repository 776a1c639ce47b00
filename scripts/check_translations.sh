#!/usr/bin/env bash
# Re-extract the translatable strings of the site into platform/arena/locale/{ko,en} and of the arena
# command (arena_cli/, with argparse's own) into arena_cli/locale/ko; fail if a catalogue has an
# untranslated (empty) or fuzzy entry; then compile them; and check that every Markdown document the
# site serves (docs/) has its Korean twin with the English structure (scripts/check_doc_twins.py).
# Run from anywhere; the arguments choose the parts (default: site arena docs).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
parts=" ${*:-site arena docs} "
catalogues=()
if [[ $parts == *" site "* ]]; then
  IGNORES=(--ignore=.venv --ignore=var --ignore=tests --ignore=benchmarks --ignore=engine
           --ignore=sandbox --ignore=arena_cli --ignore=examples --ignore=node_modules)
  "$PYTHON" manage.py makemessages -l ko -l en --no-obsolete "${IGNORES[@]}" >/dev/null
  catalogues+=(platform/arena/locale/ko/LC_MESSAGES/django.po platform/arena/locale/en/LC_MESSAGES/django.po)
fi
arena_po=arena_cli/locale/ko/LC_MESSAGES/arena.po
if [[ $parts == *" arena "* ]]; then
  pot=$(mktemp --suffix=.pot)
  trap 'rm -f "$pot"' EXIT
  argparse_py=$("$PYTHON" -c 'import argparse; print(argparse.__file__)')
  xgettext --language=Python --keyword= --keyword=_ --keyword=ngettext:1,2 --from-code=UTF-8 \
    --no-location --omit-header --output="$pot" arena_cli/*.py "$argparse_py"
  msgmerge --quiet --update --backup=none --no-location "$arena_po" "$pot"
  msgattrib --no-obsolete --no-location --output-file="$arena_po" "$arena_po"
  catalogues+=("$arena_po")
fi
status=0
for po in "${catalogues[@]}"; do
  # msgattrib prints the entries that match; the header (msgid "") is not a message
  untranslated=$(msgattrib --untranslated --no-wrap "$po" | grep -c '^msgid "..*"' || true)
  fuzzy=$(msgattrib --only-fuzzy --no-wrap "$po" | grep -c '^msgid "..*"' || true)
  if [ "$untranslated" != 0 ] || [ "$fuzzy" != 0 ]; then
    echo "$po: $untranslated untranslated, $fuzzy fuzzy:" >&2
    msgattrib --untranslated "$po" | grep '^msgid' >&2 || true
    msgattrib --only-fuzzy "$po" | grep '^msgid' >&2 || true
    status=1
  fi
done
if [[ $parts == *" docs "* ]]; then
  # docs/<page>.md of DOC_PAGES and docs/rules/<game>.md: a <name>.ko.md twin, same structure
  "$PYTHON" scripts/check_doc_twins.py || status=1
fi
[ "$status" = 0 ] || exit "$status"
if [[ $parts == *" site "* ]]; then
  (cd platform && "../$PYTHON" ../manage.py compilemessages -l ko -l en >/dev/null)
fi
if [[ $parts == *" arena "* ]]; then
  msgfmt --check --output-file="${arena_po%.po}.mo" "$arena_po"
fi
