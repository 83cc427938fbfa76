"""``python -m optimizer`` runs the ``gpumix`` command (for a checkout without the console script)."""

from optimizer.cli import main

raise SystemExit(main())
