"""Placeholder: filled in by the advise work."""


def register(app):
    return None
