// mcp-review's probe, first in the View: it reports errors and, after the tool result, the text the app shows.
// It runs in the app's own realm, so the app could forge what it posts: a finding from it says "seen by probe".
(() => {
  const post = (params) =>
    window.parent.postMessage({ jsonrpc: "2.0", method: "mcp-review/probe", params }, "*");
  const original = console.error.bind(console);
  console.error = (...args) => {
    post({ kind: "console-error", text: args.map(String).join(" ").slice(0, 500) });
    original(...args);
  };
  window.addEventListener("error", (e) =>
    post({ kind: "error", text: `${e.message} (${e.filename}:${e.lineno})`.slice(0, 500) }));
  window.addEventListener("unhandledrejection", (e) => post({ kind: "error", text: String(e.reason).slice(0, 500) }));
  window.addEventListener("message", (e) => {
    if (e.data && e.data.method === "ui/notifications/tool-result") {
      setTimeout(() => post({ kind: "rendered", text: (document.body ? document.body.innerText : "").slice(0, 2000) }), 300);
    }
  });
})();
