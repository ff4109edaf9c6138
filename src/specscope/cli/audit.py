"""Placeholder: filled in by the audit work."""


def register(app):
    return None
