"""One module per ``marjolet`` subcommand (see :mod:`marjolet.cli`)."""
