"""Terminal front ends: the plain line interface (standard library only,
:mod:`marjolet.tui.lines`) and the full-screen Textual interface."""
