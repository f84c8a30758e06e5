"""Index backends are a lower layer: nothing under ``citewise.index`` imports a stage above it
(retrieval, ingestion, answering, generation, reranking, serving, the CLI, evaluation, or the
engine that wires them), not even lazily inside a function or for type checking only."""

from __future__ import annotations

import ast
from pathlib import Path

INDEX = Path(__file__).resolve().parents[2] / "src" / "citewise" / "index"
HIGHER = ("retrieve", "ingest", "answer", "generate", "rerank", "serve", "cli", "eval",
          "engine", "facade", "indexing", "reindex")


def _imports(source: str, package: list[str]) -> list[tuple[int, str]]:
    """(line, module) of every import in ``source`` of a module in ``package``; relative
    imports resolved, ``from citewise import x`` counted as ``citewise.x``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            out.append((node.lineno, module))
            out += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return out


def _package(path: Path) -> list[str]:
    return ["citewise", *path.relative_to(INDEX.parent).parts[:-1]]


def _forbidden(module: str) -> bool:
    parts = module.split(".")
    return len(parts) > 1 and parts[0] == "citewise" and parts[1] in HIGHER


def test_index_backends_import_no_higher_layer() -> None:
    found = [f"{path.relative_to(INDEX.parent)}:{line}: {module}"
             for path in sorted(INDEX.rglob("*.py"))
             for line, module in _imports(path.read_text(encoding="utf-8"), _package(path))
             if _forbidden(module)]
    assert found == []


def test_the_check_sees_lazy_relative_and_package_imports() -> None:
    source = ("def f():\n    from citewise.retrieve import hybrid\n"
              "from citewise import answer\nfrom ... import cli\nfrom . import fts\n"
              "import citewise.text\nfrom citewise.types import Hit\n")
    package = _package(INDEX / "sqlite" / "store.py")
    assert package == ["citewise", "index", "sqlite"]
    flagged = {m for _, m in _imports(source, package) if _forbidden(m)}
    assert flagged == {"citewise.retrieve", "citewise.retrieve.hybrid", "citewise.answer",
                       "citewise.cli"}
