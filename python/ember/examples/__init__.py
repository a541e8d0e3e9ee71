"""Runnable examples: `python -m ember.examples.fashion_mnist --help`."""
