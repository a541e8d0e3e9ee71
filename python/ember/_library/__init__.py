"""The machinery behind ember.library: schemas (schema.py), the operator registry and how a
call runs (registry.py), opcheck's tests (opcheck.py)."""
