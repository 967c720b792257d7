#!/usr/bin/env python3
"""Checks every project #include against the table of allowed module edges.

Usage: check_layering.py TABLE ROOT...  (each ROOT is a source tree: ROOT/src/pagoda/<module>/
and, if present, ROOT/python/src as the module "python").

Prints each wrong-way include as FILE:LINE and exits 1 if there is one, or
if a module is missing from the table.
"""

import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"pagoda/([^/"]+)/[^"]*"')
SOURCE_SUFFIXES = {".h", ".cc", ".cpp", ".cu", ".cuh", ".inc"}


def read_table(path: pathlib.Path) -> dict[str, set[str]]:
    table = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        module, sep, deps = line.partition(":")
        if not sep or not module.strip():
            sys.exit(f"{path}:{number}: expected 'module: dep dep ...'")
        table[module.strip()] = set(deps.split())
    for module, deps in table.items():
        for dep in deps - table.keys():
            sys.exit(f"{path}: module '{module}' lists unknown module '{dep}'")
    return table


def source_files(root: pathlib.Path):
    """(module, file) for every source file of the tree."""
    for module_dir in sorted((root / "src/pagoda").iterdir()):
        if module_dir.is_dir():
            for f in sorted(module_dir.rglob("*")):
                if f.suffix in SOURCE_SUFFIXES:
                    yield module_dir.name, f
    bindings = root / "python/src"
    if bindings.is_dir():
        for f in sorted(bindings.rglob("*")):
            if f.suffix in SOURCE_SUFFIXES:
                yield "python", f


def check(table: dict[str, set[str]], root: pathlib.Path) -> list[str]:
    problems = []
    for module, f in source_files(root):
        if module not in table:
            problems.append(f"{f}: module '{module}' is not in the layering table")
            continue
        for number, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if m and m.group(1) != module and m.group(1) not in table[module]:
                allowed = " ".join(sorted(table[module])) or "nothing"
                problems.append(f"{f}:{number}: {module}/ may not include {line.strip()[8:].strip()} "
                                f"({module}/ may include: {allowed})")
    return problems


def main() -> int:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    table = read_table(pathlib.Path(sys.argv[1]))
    problems = [p for root in sys.argv[2:] for p in check(table, pathlib.Path(root))]
    for p in problems:
        print(p)
    if not problems:
        print(f"layering: every include follows {sys.argv[1]}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
