"""The review screen's tabs, one module each: a pane owns its widgets, state and bindings; the app shows
data in it (`show(...)`) and hears back from it through messages."""
