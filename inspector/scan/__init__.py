"""Find hostile or leaky text in what a server says about itself (tool poisoning, leaked credentials).

`scan_text(text)` returns `Hit`s sorted by position; overlapping hits of one kind are merged. Each
quotes the offending span made visible between « » with ~30 characters of context. Kinds:
hidden-instruction, model-order, steering, sensitive-file, exfiltration-url, exfiltration, credential-request,
credential, high-entropy, injection-payload, invisible-character, escape-sequence, active-content and evasion.
Severity: `fail` means clearly hostile or a real credential; `warn` means suspicious, may be benign.

One module per concern; each module's docstring says what its kinds match:

- `normalise`: what hides text (escapes, invisible characters) is reported and removed, giving the view
  the pattern rules read and the map back to the original.
- `fold`: the views that undo evasions (NFKC, confusables, split words, encodings, identifiers).
- `instructions`: text aimed at the model (hidden-instruction), as patterns.
- `steering`: text that widens what the model does with a tool: consent waived, returned content trusted,
  the tool's use widened, priority claimed (steering).
- `intent`: what a sentence asks, of whom (hidden-instruction, model-order); `context`: whether the
  sentence around a pattern's match means it (negated, quoted in a text about attacks, advice).
- `exfiltration`: URLs or addresses data is sent to; `files`: sensitive files a text asks read or moved;
  `envvars`: credential environment variables (or the whole environment) asked to be sent or included; `flows`:
  the user's data, secrets or the conversation moved in prose to a place the user did not choose.
- `credentials`: credentials (named, labelled, in headers and URLs) and high-entropy strings; `formats`: keys
  known by their vendor's or their environment's prefix; `values`: whether a value given to a secret's name is
  one (how random a string is: `mcp_review.entropy`, which masking reads too); `detectors`: detect-secrets'
  vendor formats and the keys vendors publish as examples.
- `payloads`: shell, SQL, traversal, template and SSRF payloads written into defaults, examples, URIs or
  descriptions.
- `active`: markup a client would run when it renders the text.
- `asks`: what a tool's parameters or an elicitation form ask for (used by the rules, not `scan_text`).
- `rules`: what they share: the raw hit, `Rule` and its judge, `run_rules`, pattern pieces.
- `scanner`: the driver (`scan_text`), the `Hit`, merging and quoting.
"""

from mcp_review.scan.scanner import Hit, scan_text

__all__ = ["Hit", "scan_text"]
