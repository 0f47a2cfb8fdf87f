#!/usr/bin/python3
"""Every source file of the libraries is named in share/doc/architecture.md, so the file map
cannot drift from the tree: a file added without its line fails this check.

A file counts as named when architecture.md mentions its path (`analyze/src/common/cube.cpp`), or
its file name on a line (a table row, a list item) that also names its folder
(`analyze/src/common/`), or its file name alone when no other checked file has that name. Files
that share a name (app.cpp of three programs) therefore need their folder beside them. The
folders under a checked folder are checked too, each file against its own folder. Globs and prose
do not count for files of the checked folders: each needs its own mention.

Usage: check_doc_files.py SOURCE_DIR [DOC]"""
import os
import re
import sys

# The folders whose every source file the map must name (the public headers of the programs are
# the declarations of these files and share their names; core's headers are its interface).
FOLDERS = ["core/include/nt", "core/src", "network_test/src", "network_test/modes", "convert/src",
           "cluster/src", "analyze/src", "viewer/src"]
SRC_EXT = (".cpp", ".hpp", ".h")

root = sys.argv[1]
doc = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "share/doc/architecture.md")

files = []
for folder in FOLDERS:
    # with the folders under it (analyze/src/topology/): each file's folder is the one it is in
    for d, subdirs, names in sorted(os.walk(os.path.join(root, folder))):
        subdirs.sort()
        here = os.path.relpath(d, root).replace(os.sep, "/")
        files += [f"{here}/{f}" for f in sorted(names) if f.endswith(SRC_EXT)]
count = {}
for f in files:
    count[os.path.basename(f)] = count.get(os.path.basename(f), 0) + 1

with open(doc, encoding="utf-8") as fh:
    lines = fh.read().splitlines()


def word(name):
    """`name` as a whole file name: not part of a longer name or path component."""
    return re.compile(r"(?<![\w.-])" + re.escape(name) + r"(?![\w-])")


def named(path):
    folder, name = os.path.split(path)
    if any(word(path).search(line) for line in lines):
        return True
    w = word(name)
    for line in lines:
        # a mention of the folder itself: `folder/` or `folder/x`, not `other/folder/x`
        here = re.search(r"(?<![\w/.-])" + re.escape(folder) + r"/", line)
        if (here or count[name] == 1) and any(m.start() == 0 or line[m.start() - 1] != "/"
                                              for m in w.finditer(line)):
            return True
    return False


missing = [f for f in files if not named(f)]
for f in missing:
    print(f"{doc}: source file `{f}` is not in the file map (add a line on what it holds)")
if not files:
    print(f"{root}: none of the folders {FOLDERS} holds a source file")
    sys.exit(1)
sys.exit(1 if missing else 0)
