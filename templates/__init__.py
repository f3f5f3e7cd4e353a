"""Jinja2 templates of the emitted HLS project (loaded as package data)."""
