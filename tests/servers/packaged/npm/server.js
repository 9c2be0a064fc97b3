#!/usr/bin/env node
// A tiny MCP server over stdio (JSON lines), as an npm package ships one: one read-only tool, `echo`.
const readline = require("readline");
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const tool = {
  name: "echo",
  description: "Echo the text back. Use to check the server answers.",
  inputSchema: {type: "object", properties: {text: {type: "string", maxLength: 200}}, required: ["text"]},
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
};
readline.createInterface({input: process.stdin}).on("line", (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined || m.method === undefined) return;
  const answer = (result) => send({jsonrpc: "2.0", id: m.id, result});
  if (m.method === "initialize") {
    answer({protocolVersion: "2025-11-25", capabilities: {tools: {}}, serverInfo: {name: "fixture-npm", version: "1.0.0"}});
  } else if (m.method === "tools/list") {
    answer({tools: [tool]});
  } else if (m.method === "tools/call") {
    const text = String((m.params.arguments || {}).text || "");
    answer({content: [{type: "text", text}], isError: false});
  } else if (m.method === "ping") {
    answer({});
  } else {
    send({jsonrpc: "2.0", id: m.id, error: {code: -32601, message: "Method not found"}});
  }
});
