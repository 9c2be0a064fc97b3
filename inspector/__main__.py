"""`python -m inspector` is `mcp-review`."""

from inspector.cli import main

raise SystemExit(main())
