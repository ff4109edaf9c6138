"""Placeholder: filled in by the gate work."""


def register(app):
    return None
