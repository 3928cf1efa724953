"""``python -m srfsym.cli ...``: the same as the ``srfsym`` command."""
import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())
