#!/usr/bin/python3
"""Every `code name` in backticks in share/doc/architecture.md that looks like an identifier
(foo, nt::foo, Type::member, foo()) or a path (network_test/src/runner.cpp, modes/*.cpp) must be
found in the source tree: a path must exist (globs must match), an identifier's last part must
occur as a word in some source file. Usage: check_doc_names.py SOURCE_DIR [DOC...]"""
import glob
import os
import re
import sys

root = sys.argv[1]
docs = sys.argv[2:] or [os.path.join(root, "share/doc/architecture.md")]
SRC_EXT = (".cpp", ".hpp", ".h", ".cmake", ".txt", ".py", ".sh", ".json")
SKIP = {"build", ".git", "third_party"}

text = []
for d, dirs, files in os.walk(root):
    dirs[:] = [x for x in dirs if x not in SKIP and not x.startswith("build")]
    for f in files:
        if f.endswith(SRC_EXT) or f == "CMakeLists.txt":
            try:
                with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
                    text.append(fh.read())
            except OSError:
                pass
corpus = "\n".join(text)


def bodies(owner):
    """The bodies, without comments, of every definition of type `owner` in the tree."""
    for t in text:
        for m in re.finditer(r"\b(?:struct|class|enum class|enum)\s+" + re.escape(owner) + r"\b[^;{]*\{", t):
            depth, i = 1, m.end()
            while depth and i < len(t):
                depth += {"{": 1, "}": -1}.get(t[i], 0)
                i += 1
            yield re.sub(r"//[^\n]*|/\*.*?\*/", "", t[m.end():i], flags=re.S)


def member_found(owner, member):
    """`Owner::member` with an upper-case Owner (a type): member must be declared in its body
    (or defined out of line as Owner::member)."""
    if re.search(r"\b" + re.escape(owner) + r"::" + re.escape(member) + r"\b", corpus):
        return True
    return any(re.search(r"\b" + re.escape(member) + r"\b", b) for b in bodies(owner))


IDENT = re.compile(r"^(?:[A-Za-z_]\w*::)*[A-Za-z_]\w*(?:\(\))?$")
PATH = re.compile(r"^[\w.*-]+(?:/[\w.*-]+)+/?$")
missing = []
for doc in docs:
    with open(doc, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            for name in re.findall(r"`([^`\n]+)`", line):
                if PATH.match(name):
                    if not glob.glob(os.path.join(root, name)):
                        missing.append(f"{doc}:{lineno}: path `{name}` does not exist")
                elif IDENT.match(name) and ("_" in name or "::" in name or name.endswith("()")
                                            or any(c.isupper() for c in name[1:])):
                    parts = name.removesuffix("()").split("::")
                    last = parts[-1]
                    if len(parts) > 1 and parts[-2][:1].isupper():
                        found = member_found(parts[-2], last)
                    else:
                        found = re.search(r"\b" + re.escape(last) + r"\b", corpus)
                    if not found:
                        missing.append(f"{doc}:{lineno}: name `{name}` is not in the source tree")
for m in missing:
    print(m)
sys.exit(1 if missing else 0)
