"""The folders' allowed link edges, checked against CMake's real link graph.

Reads the graph CMake writes with --graphviz (every target and what it links,
direct edges only) and the target -> folder table the top CMakeLists.txt writes
(ax_targets.tsv), and reports every edge between top-level folders that the
table below does not allow, every cycle between folders, and what ax_core
links besides nlohmann_json. Pure: paths in, a list of problems out.
"""

import re

# Top-level folder -> the folders it may link (directly). Anything else is a
# problem; a folder missing here is one too, so a new folder needs a decision.
ALLOWED = {
    "core": set(),
    "runtime": {"core"},
    "kube": {"runtime"},
    "loader": {"core"},
    "contract": {"core", "runtime"},
    "plan": {"core", "loader", "contract"},
    "signals": {"core", "runtime", "plan"},
    "probe": {"core", "runtime", "loader", "kube"},
    "dns-server": {"core", "runtime", "loader", "plan", "contract", "signals", "probe",
                   "kube"},
    "operator": {"core", "runtime", "loader", "plan", "contract", "signals", "kube"},
}
# Folders whose targets are never part of a product (test and bench binaries).
IGNORED = {"tests"}
# What ax_core may link outside the project: it is the pure decision core.
CORE_EXTERNAL = {"nlohmann_json::nlohmann_json"}

_NODE = re.compile(r'^\s*"(node\d+)" \[ label = "([^"]*)"')
_EDGE = re.compile(r'^\s*"(node\d+)" -> "(node\d+)"')


def read_graph(dot_text):
    """The edges of a CMake graphviz file as (from, to) target names."""
    names, edges = {}, []
    for line in dot_text.splitlines():
        if m := _NODE.match(line):
            names[m.group(1)] = m.group(2)
        elif m := _EDGE.match(line):
            edges.append((m.group(1), m.group(2)))
    return sorted({(names[a], names[b]) for a, b in edges})


def read_targets(tsv_text):
    """target -> top-level folder, from ax_targets.tsv ("target\\tfolder")."""
    folders = {}
    for line in tsv_text.splitlines():
        if line.strip():
            target, rel = line.split("\t")
            folders[target] = rel.split("/")[0] if rel else "."
    return folders


def _cycles(graph):
    """Each cycle of a folder graph, as a list of folders (first repeated)."""
    found, state, stack = [], {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def check(edges, folders):
    """Every problem of a link graph, as sentences; empty when it is clean."""
    problems = []
    folder_graph = {}
    for source, target in edges:
        src = folders.get(source)
        if src is None or src in IGNORED:
            continue
        dst = folders.get(target)
        if dst is None:  # outside the project: a system or imported library
            if source == "ax_core" and target not in CORE_EXTERNAL:
                problems.append(f"ax_core links {target}: core links only nlohmann_json")
            continue
        if dst == src or dst in IGNORED:
            continue
        folder_graph.setdefault(src, set()).add(dst)
        if src not in ALLOWED:
            problems.append(f"{source} ({src}/) is in a folder the allowed edges do not list")
        elif dst not in ALLOWED[src]:
            problems.append(f"{source} ({src}/) links {target} ({dst}/): {src}/ may link only "
                            + (", ".join(sorted(ALLOWED[src])) or "nothing of the project"))
    for cycle in _cycles(folder_graph):
        problems.append("folders form a cycle: " + " -> ".join(cycle))
    return problems
