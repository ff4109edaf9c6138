"""Placeholder: filled in by the surgery work."""


def register(app):
    return None
