"""``python -m rebalance_cli``: the console script without its installed wrapper."""

from rebalance_cli import main

raise SystemExit(main())
