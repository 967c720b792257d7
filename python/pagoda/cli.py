"""The `pagoda` console script (pyproject.toml's [project.scripts]): the
package's copy of the `pagoda` CLI, pagoda/bin/pagoda, run with the same
arguments in place of this process, so that its output, signals and exit
status are the binary's own (its argv[0] is "pagoda")."""

import os
import pathlib
import sys
from typing import List, Optional


def binary() -> pathlib.Path:
    """The CLI that `pip install` (or `make build`, as a link) put in the package."""
    return pathlib.Path(__file__).resolve().parent / "bin" / "pagoda"


def run(args: List[str]) -> None:
    """Replaces this process with `pagoda ARGS...`; never returns."""
    path = binary()
    if not path.exists():
        sys.exit(f"pagoda: the CLI is missing from the package ({path}); reinstall it (pip install .)")
    sys.stdout.flush()
    sys.stderr.flush()
    # Named `pagoda` in its usage lines, as when run from the PATH.
    os.execv(str(path), ["pagoda", *args])


def main(argv: Optional[List[str]] = None) -> None:
    run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    main()
