"""The bundled demo server: `python -m inspector.demo` serves stdio. See server.py for its deliberate defects."""
