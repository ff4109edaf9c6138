"""Placeholder: filled in by the serve work."""


def register(app):
    return None
