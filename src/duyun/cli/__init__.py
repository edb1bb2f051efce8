"""The ``duyun`` command: one Typer app, one module per sub-command."""
