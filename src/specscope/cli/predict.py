"""Placeholder: filled in by the predict work."""


def register(app):
    return None
