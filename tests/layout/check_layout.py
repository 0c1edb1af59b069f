#!/usr/bin/env python3
"""Checks the #include lines of harness/, client/ and service/ against the layers
of harness/README.md: each harness folder may include only the folders below it,
client/ and service/ nothing of harness/, and no two folders include each other.

  check_layout.py ROOT          check the tree at ROOT; exit 1 naming each bad include
  check_layout.py --self-test   check that a tree with a forbidden include fails
"""
import os
import re
import sys
import tempfile

# What each harness folder may include directly; what those include is allowed too.
LAYERS = {
    "core": [],
    "proc": [],
    "report": ["core", "proc"],
    "engine": ["core", "client"],
    "ramp": ["engine", "report", "proc"],
    "chat": ["ramp", "service"],
    "commands": ["ramp", "chat"],
    "mpi": ["commands"],
}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
SOURCE = (".h", ".hpp", ".cpp", ".cc")


def allowed(folder):
    """The transitive closure of LAYERS[folder]: every folder `folder` may include."""
    seen, todo = set(), list(LAYERS.get(folder, []))
    while todo:
        f = todo.pop()
        if f not in seen:
            seen.add(f)
            todo.extend(LAYERS.get(f, []))
    return seen


def sources(top):
    for dirpath, _, names in os.walk(top):
        for n in sorted(names):
            if n.endswith(SOURCE):
                yield os.path.join(dirpath, n)


def index_names(root, top):
    """Bare file names of headers under root/top, for includes written without a folder."""
    return {os.path.basename(p) for p in sources(os.path.join(root, top))}


def owner(root, path):
    """('harness', folder), ('client', None) or ('service', None) for a source file."""
    rel = os.path.relpath(path, root).split(os.sep)
    if rel[0] == "harness" and len(rel) > 2:
        return rel[1]
    return rel[0]


def target_of(include, here_dir, client_names, service_names):
    """The layer an include reaches: a harness folder, 'client', 'service', or None (system, generated)."""
    first = include.split("/")[0]
    if "/" in include and first in LAYERS:
        return first
    if os.path.exists(os.path.join(here_dir, include)):
        return "same"
    name = os.path.basename(include)
    if name in client_names:
        return "client"
    if name in service_names:
        return "service"
    return None


def check(root):
    problems, edges = [], {}
    client_names = index_names(root, "client")
    service_names = index_names(root, "service")
    harness_names = index_names(root, "harness")
    for top in ("harness", "client", "service"):
        for path in sources(os.path.join(root, top)):
            me = owner(root, path)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for m in INCLUDE.finditer(text):
                inc = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                where = f"{os.path.relpath(path, root)}:{line}"
                if top != "harness":
                    if inc.split("/")[0] in LAYERS and "/" in inc or (
                        "/" not in inc and inc in harness_names and inc not in client_names
                        and inc not in service_names and not os.path.exists(os.path.join(os.path.dirname(path), inc))):
                        problems.append(f"{where}: {top}/ includes \"{inc}\" from harness/; {top}/ must not depend on harness/")
                    continue
                if me not in LAYERS:
                    continue
                to = target_of(inc, os.path.dirname(path), client_names, service_names)
                if to is None or to == "same" or to == me:
                    if "/" not in inc and inc in harness_names and to != "same":
                        problems.append(f"{where}: \"{inc}\" names no folder; write \"FOLDER/{inc}\"")
                    continue
                edges.setdefault(me, set()).add(to)
                if to not in allowed(me):
                    problems.append(f"{where}: harness/{me} includes \"{inc}\" ({to}); "
                                    f"harness/{me} may use only: {', '.join(sorted(allowed(me))) or 'nothing in harness'}")
    problems.extend(cycles(edges))
    return problems


def cycles(edges):
    """A line per cycle between folders."""
    found, state = [], {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                found.append("cycle between folders: " + " -> ".join(path[path.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for n in sorted(edges):
        if n not in state:
            visit(n, [n])
    return found


def self_test():
    """A tree whose core/ includes ramp/ and whose client/ includes harness/ must fail, naming both."""
    with tempfile.TemporaryDirectory() as root:
        files = {
            "harness/core/a.h": '#include "ramp/b.h"\n',
            "harness/ramp/b.h": '#include "core/a.h"\n#include "engine/e.h"\n',
            "harness/engine/e.h": '#include "client.h"\n',
            "client/client.h": '#include "core/a.h"\n',
            "service/s.cpp": '#include "x.h"\n',
        }
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        problems = check(root)
        expect = ["harness/core/a.h:1: harness/core includes \"ramp/b.h\" (ramp)",
                  "client/client.h:1: client/ includes \"core/a.h\" from harness/",
                  "cycle between folders: core -> ramp -> core"]
        missing = [e for e in expect if not any(p.startswith(e) for p in problems)]
        if missing or len(problems) != 3:
            print("self-test failed; expected:", *expect, "got:", *problems, sep="\n  ")
            return 1
        print("self-test: the forbidden includes and the cycle were found")
        return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(argv[1])
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} include(s) break the layers of harness/README.md")
        return 1
    print("layout: every include keeps to the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
