#!/bin/sh
# nt-man.sh PROGRAM OUT.1 VERSION: the man page of a program from its --help (help2man), with
# the --help of every subcommand in a SUBCOMMANDS section and the other programs in SEE ALSO.
# Run at build time (cmake/NtInstall.cmake), so the pages never drift from the programs.
set -eu
prog=$1 out=$2 version=$3
HELP2MAN=${HELP2MAN:-help2man}
name=$(basename "$prog")
help=$("$prog" --help)
# First line of every --help: "program: what it does".
desc=$(printf '%s\n' "$help" | head -n 1 | sed 's/^[^:]*: *//')
inc=$(mktemp)
trap 'rm -f "$inc"' EXIT
# roff-safe preformatted text: backslashes, and lines starting with . or '
roff() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
subs=$(printf '%s\n' "$help" | sed -n '/^Subcommands:/,$p' | sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p')
if [ -n "$subs" ]; then
  echo '[SUBCOMMANDS]' >>"$inc"
  for s in $subs; do
    printf '.SS %s\n.nf\n' "$s" >>"$inc"
    "$prog" "$s" --help | roff >>"$inc"
    printf '.fi\n' >>"$inc"
  done
fi
{
  echo '[SEE ALSO]'
  first=1
  for p in network_test network_convert network_cluster network_analyze network_viewer; do
    [ "$p" = "$name" ] && continue
    if [ $first = 1 ]; then first=0; else printf ',\n'; fi
    printf '.BR %s (1)' "$p"
  done
  case $name in network_test) doc=network_test.md ;; *) doc=${name#network_}.md ;; esac
  printf '\n.PP\nThe documentation of the suite: %s.md and formats.md in /usr/share/doc/network-tests/.\n' "${doc%.md}"
} >>"$inc"
"$HELP2MAN" --no-info --no-discard-stderr --version-string="$version" --name="$desc" \
  --include="$inc" --output="$out.tmp" "$prog"
mv "$out.tmp" "$out"
