"""``python -m optimizer.cli``: the same as ``gpumix`` and ``python -m optimizer``."""

from optimizer.cli import main

raise SystemExit(main())
