"""python3 -m asyncsim_frontend {capture,instrument,translate} ... (see docs/frontend-triton.md)."""
import sys

from .cli import main

sys.exit(main())
