// The host side of the MCP Apps bridge (ext-apps spec 2026-01-26): JSON-RPC over postMessage, through the Sandbox.
// Every message the app sends is posted to mcp-review (at most LIMIT); nothing the app asks for is carried out.
const LIMIT = 500;
let posted = 0;
function report(kind, data) {
  if (posted >= LIMIT) return;
  const n = posted++;  // the fetches may land out of order: the server sorts by n
  fetch("/report", { method: "POST", body: JSON.stringify({ n, kind, data }) }).catch(() => {});
}
const frame = document.getElementById("sandbox");
const status = (text) => { document.getElementById("status").textContent = text; };
const session = fetch("/session.json").then((r) => r.json());
session.then((s) => {
  document.getElementById("tool").textContent = s.tool.name;
  frame.src = s.sandboxOrigin + "/sandbox";
});

function send(s, msg) {
  report("sent", { method: msg.method || "(response)", id: msg.id });
  frame.contentWindow.postMessage(msg, s.sandboxOrigin);
}
const REFUSED = { code: -32601, message: "mcp-review's preview does not carry this out; it reports it to the reviewer" };

window.addEventListener("message", async (event) => {
  const s = await session;
  if (event.source !== frame.contentWindow || event.origin !== s.sandboxOrigin) {
    report("foreign", { origin: event.origin });
    return;
  }
  const msg = event.data;
  if (!msg || typeof msg !== "object" || msg.jsonrpc !== "2.0") {
    report("bridge", { invalid: String(JSON.stringify(msg)).slice(0, 300) });
    return;
  }
  if (msg.method === "ui/notifications/sandbox-proxy-ready") {
    send(s, { jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready", params: {} });
    return;
  }
  report("bridge", msg);
  if (msg.method === "ui/initialize" && msg.id !== undefined) {
    status("initializing");
    send(s, { jsonrpc: "2.0", id: msg.id, result: {
      protocolVersion: "2026-01-26",
      hostCapabilities: { logging: {} },
      hostInfo: s.hostInfo,
      hostContext: { toolInfo: { tool: s.tool }, theme: "light", displayMode: "inline",
                     availableDisplayModes: ["inline"], platform: "web" },
    } });
  } else if (msg.method === "ui/notifications/initialized") {
    send(s, { jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: s.arguments } });
    if (s.result !== null) {
      send(s, { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: s.result });
      status("tool result sent");
    } else {
      status("no tool result sent (no consent, or the call failed)");
    }
  } else if (msg.method === "ping" && msg.id !== undefined) {
    send(s, { jsonrpc: "2.0", id: msg.id, result: {} });
  } else if (msg.method === "ui/notifications/size-changed" && msg.params && msg.params.height > 0) {
    frame.style.height = Math.min(Number(msg.params.height), 4000) + "px";
  } else if (typeof msg.method === "string" && msg.id !== undefined) {
    send(s, { jsonrpc: "2.0", id: msg.id, error: REFUSED });
  }
});
