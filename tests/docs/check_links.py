#!/usr/bin/env python3
"""Every documentation link resolves inside the repository.

Checks all Markdown files of the tree (build directories and .git excluded):
  * [text](target) and ![alt](target) links that are not URLs: the file exists (relative to the
    Markdown file), and a #fragment names a heading of the target Markdown file;
  * `path` spans that name a repository file (start with a top-level directory of the tree and
    contain no placeholders): the file exists;
  * no file of the tree (sources, scripts, docs) refers to the external DESIGN.md.
Prints one line per broken reference and exits 1 when there is any.
"""
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
SKIP_DIRS = {".git", "node_modules"}
TOP = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)) and not d.startswith("."))
TOP = [d for d in TOP if not d.startswith("build")]


def walk(exts=None):
    for base, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build") and not d.startswith(".")]
        for f in files:
            if exts is None or os.path.splitext(f)[1] in exts:
                yield os.path.join(base, f)


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(md):
    out = set()
    in_code = False
    for line in open(md, encoding="utf-8"):
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            out.add(slug(line.lstrip("#")))
    return out


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE = re.compile(r"`([^`\s]+)`")
errors = []
docs = list(walk({".md"}))
for md in docs:
    rel = os.path.relpath(md, root)
    text = open(md, encoding="utf-8").read()
    # links outside fenced code blocks
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in LINK.findall(prose):
        if re.match(r"^[a-z]+:", target):
            continue  # http:, https:, mailto:
        path, _, frag = target.partition("#")
        dest = md if not path else os.path.normpath(os.path.join(os.path.dirname(md), path))
        if not os.path.exists(dest):
            errors.append(f"{rel}: link to missing {target}")
        elif not os.path.realpath(dest).startswith(os.path.realpath(root) + os.sep):
            errors.append(f"{rel}: link {target} leaves the repository")
        elif frag and dest.endswith(".md") and frag not in anchors(dest):
            errors.append(f"{rel}: link {target}: no heading '{frag}' in {os.path.relpath(dest, root)}")
    for span in CODE.findall(prose):
        first = span.split("/")[0]
        if "/" not in span or first not in TOP or span.endswith("/") or re.search(r"[<>*{}$]|\.\.\.", span):
            continue
        if not os.path.exists(os.path.join(root, span.rstrip("/"))):
            errors.append(f"{rel}: names missing file `{span}`")

for f in walk({".md", ".cpp", ".hpp", ".h", ".py", ".sh", ".cmake", ".txt", ".in", ".json"}):
    if os.path.dirname(f) == os.path.dirname(os.path.abspath(__file__)):
        continue
    try:
        if "DESIGN.md" in open(f, encoding="utf-8", errors="replace").read():
            errors.append(f"{os.path.relpath(f, root)}: refers to DESIGN.md, which is not in the repository")
    except OSError:
        pass

for e in errors:
    print(e)
print(f"{len(docs)} Markdown files checked, {len(errors)} broken reference(s)")
sys.exit(1 if errors else 0)
