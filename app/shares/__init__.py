"""Shared views: page states stored content-addressed in SQLite (store.py, its errors in
errors.py). No web code here."""
