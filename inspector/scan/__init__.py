"""Find hostile or leaky text in what a server says about itself (tool poisoning, leaked credentials).

`scan_text(text)` returns `Hit`s sorted by position; overlapping hits of one kind are merged. Each
quotes the offending span made visible between « » with ~30 characters of context. Kinds:
hidden-instruction, sensitive-file, exfiltration-url, credential, high-entropy, invisible-character and
escape-sequence. Severity: `fail` means clearly hostile or a real credential; `warn` means suspicious,
may be benign.

One module per concern; each module's docstring says what its kinds match:

- `normalise`: what hides text (escapes, invisible characters) is reported and removed, giving the view
  the pattern rules read and the map back to the original. Unicode folding (NFKC, confusables) goes here.
- `instructions`: text aimed at the model (hidden-instruction). Intent and context-aware matching go here.
- `exfiltration`: sensitive files named and URLs or addresses data is sent to.
- `credentials`: credentials and high-entropy strings. More secret detectors (detect-secrets) go here.
- `rules`: what they share: the raw hit, `Rule` and its judge, `run_rules`, pattern pieces.
- `scanner`: the driver (`scan_text`), the `Hit`, merging and quoting.
"""

from inspector.scan.scanner import Hit, scan_text

__all__ = ["Hit", "scan_text"]
