"""`python -m app.cli`: the `tokenprism` command (guarded: Dask's worker processes import the main module)."""

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
