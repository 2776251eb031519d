"""``python -m marjolet`` is the ``marjolet`` command."""

from marjolet.cli import main

raise SystemExit(main())
