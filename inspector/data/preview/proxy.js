// The Sandbox proxy (ext-apps spec 2026-01-26, "Sandbox proxy"): relay between the host page and the View.
const HOST = "__HOST_ORIGIN__";
let view = null;
window.addEventListener("message", (event) => {
  const msg = event.data;
  const method = msg && typeof msg === "object" && typeof msg.method === "string" ? msg.method : "";
  if (event.source === window.parent && event.origin === HOST) {
    if (method === "ui/notifications/sandbox-resource-ready") {
      if (view) return;
      view = document.createElement("iframe");
      view.setAttribute("sandbox", "allow-scripts");  // an opaque origin: neither this frame nor the host
      view.style.width = "100%";
      view.style.height = "100vh";
      view.style.border = "0";
      view.src = "/view";
      document.body.appendChild(view);
    } else if (view) {
      view.contentWindow.postMessage(msg, "*");  // the View's origin is opaque: "*" is the only target
    }
  } else if (view && event.source === view.contentWindow) {
    if (!method.startsWith("ui/notifications/sandbox-")) window.parent.postMessage(msg, HOST);
  }
});
window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, HOST);
