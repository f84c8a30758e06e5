"""``citewise serve``: the HTTP API and web page over one Engine (see :mod:`.app`)."""

from citewise.serve.app import create_app

__all__ = ["create_app"]
