"""`python -m bankcheck ...`: the same as the `bankcheck` command."""

import sys

from ._command import main

sys.exit(main())
