"""net/ has no import circles: each module imports its siblings, never through one of them back to itself."""

from __future__ import annotations

import ast
from pathlib import Path

NET = Path(__file__).resolve().parent.parent.parent / "net"


def sibling_imports(folder: Path, package: str) -> dict[str, set[str]]:
    """Each module of ``folder`` (the package ``package``) and the siblings it
    imports anywhere in it: at module level, under TYPE_CHECKING, or inside a function."""
    names = {path.stem for path in folder.glob("*.py")}
    graph = {}
    for path in folder.glob("*.py"):
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == package:
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package + "."):
                found.add(node.module.split(".")[len(package.split("."))])
            elif isinstance(node, ast.Import):
                found |= {
                    a.name.split(".")[len(package.split("."))] for a in node.names if a.name.startswith(package + ".")
                }
        graph[path.stem] = (found & names) - {path.stem}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle of ``graph``, each once, starting at its first module by name."""
    found = []

    def walk(path: list[str]) -> None:
        for after in sorted(graph[path[-1]]):
            if after == path[0]:
                found.append(path)
            elif after > path[0] and after not in path:
                walk(path + [after])

    for start in sorted(graph):
        walk([start])
    return found


def test_net_has_no_import_circles() -> None:
    graph = sibling_imports(NET, "quackbox.net")
    assert "table" in graph and "config" in graph["lobby"]
    assert circles(graph) == []


def test_a_circle_is_found_under_type_checking_too(tmp_path: Path) -> None:
    (tmp_path / "table.py").write_text("from quackbox.x.lobby import Lobby\n")
    (tmp_path / "lobby.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from quackbox.x.table import TableConfig\n"
    )
    (tmp_path / "seats.py").write_text("from quackbox.x import lobby\n")
    assert circles(sibling_imports(tmp_path, "quackbox.x")) == [["lobby", "table"]]
