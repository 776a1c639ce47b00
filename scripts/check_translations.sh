#!/usr/bin/env bash
# Re-extract the site's translatable strings into platform/locale/{ko,en} and fail if either
# catalogue has an untranslated (empty) or fuzzy entry; then compile them. Run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
IGNORES=(--ignore=.venv --ignore=var --ignore=tests --ignore=benchmarks --ignore=engine
         --ignore=sandbox --ignore=examples --ignore=node_modules)
"$PYTHON" manage.py makemessages -l ko -l en --no-obsolete "${IGNORES[@]}" >/dev/null
status=0
for lang in ko en; do
  po="platform/locale/$lang/LC_MESSAGES/django.po"
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
[ "$status" = 0 ] && (cd platform && "../$PYTHON" ../manage.py compilemessages -l ko -l en >/dev/null)
exit "$status"
