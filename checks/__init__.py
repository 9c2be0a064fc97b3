"""The rule packs: review, spec, tokens, design and registry, one decorated function per rule.

They are built on the rules framework (`mcp_review.rules`) and imported by name by its `load_rules`; nothing
outside this package imports a pack (the import contracts in pyproject.toml).
"""
