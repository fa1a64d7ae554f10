"""``python -m anonratio.bench.cli``: the ``anonratio`` command."""

import sys

from anonratio.bench.cli.parser import main

sys.exit(main())
