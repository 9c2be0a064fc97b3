"""The rules framework: what a rule is (`core`: the registry, the `@rule` decorator, the packs' names), what it sees
(`context`: `CheckContext`, `Options`), and the helpers every pack shares (`util`, `arguments`).

The packs (`mcp_review.checks`) import this; the core imports only this, never a pack: `core.load_rules` imports
the packs by name when the rules are asked for, as a plugin host does (docs/architecture.md, Layers).
"""
