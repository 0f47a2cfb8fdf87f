#!/bin/sh
# The link checker finds what it should: a tree with one broken link, one bad anchor, one missing
# named file and one DESIGN.md reference gives exactly four complaints and exit 1; the fixed tree
# passes.
set -u
checker="$1"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/share/doc" "$dir/core"
printf '# Title\n\n## Some part\n' > "$dir/share/doc/b.md"
printf '[ok](b.md#some-part) [gone](c.md) [anchor](b.md#nope) `core/missing.hpp` ![img](b.md)\n' > "$dir/share/doc/a.md"
printf '// see DESIGN.md\n' > "$dir/core/x.cpp"
out=$(python3 "$checker" "$dir"); rc=$?
echo "$out"
[ "$rc" = 1 ] || { echo "FAIL: exit $rc, expected 1"; exit 1; }
n=$(echo "$out" | grep -c -e 'missing c.md' -e "no heading 'nope'" -e 'missing file `core/missing.hpp`' -e 'x.cpp: refers to DESIGN.md')
[ "$n" = 4 ] || { echo "FAIL: $n of 4 complaints"; exit 1; }
printf '[ok](b.md#some-part) `share/doc/b.md`\n' > "$dir/share/doc/a.md"
printf '// see design.md\n' > "$dir/core/x.cpp"
python3 "$checker" "$dir" || { echo "FAIL: clean tree refused"; exit 1; }
echo PASS
