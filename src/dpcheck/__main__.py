"""``python -m dpcheck``."""

import sys

from dpcheck.cli import main

sys.exit(main())
