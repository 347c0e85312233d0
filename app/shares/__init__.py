"""Shared views: page states stored content-addressed in SQLite (store.py). No web code here."""
