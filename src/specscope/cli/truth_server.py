"""Placeholder: filled in by the truth_server work."""


def register(app):
    return None
