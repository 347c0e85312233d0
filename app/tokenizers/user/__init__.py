"""Tokenizers users add: uploads checked as hostile, and the models they trained."""
