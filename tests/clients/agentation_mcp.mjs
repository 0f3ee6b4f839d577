// Agentation's own MCP server in client mode (`agentation-mcp server --mcp-only
// --http-url …`), unchanged, against `pinpoint serve`: an MCP client (the official
// TypeScript SDK that agentation-mcp ships with) lists sessions, gets pending,
// acknowledges, replies and resolves; the results are checked over Pinpoint's HTTP API.
//
// Usage: node agentation_mcp.mjs NODE_PREFIX PATH/TO/pinpoint   (run by .ci/run)
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";

const [prefix, binary] = process.argv.slice(2);
const mod = (p) => import(pathToFileURL(join(prefix, "node_modules", p)).href);
const { Client } = await mod("@modelcontextprotocol/sdk/dist/esm/client/index.js");
const { StdioClientTransport } = await mod("@modelcontextprotocol/sdk/dist/esm/client/stdio.js");

let passed = 0, failed = 0;
const check = (name, ok, detail = "") => {
  if (ok) passed++; else failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok ? "" : "  " + detail}`);
};

const store = join(mkdtempSync(join(tmpdir(), "pinpoint-agt-")), "a.db");
const server = spawn(binary, ["serve", "--port", "0", "--store", store], { stdio: ["ignore", "pipe", "inherit"] });
const addr = await new Promise((res, rej) => {
  createInterface({ input: server.stdout }).once("line", (l) => res(l.trim()));
  server.once("exit", (c) => rej(new Error("serve exited " + c)));
});
const base = `http://${addr}`;
const http = async (method, path, body) => {
  const r = await fetch(base + path, { method, headers: { "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
  return { status: r.status, json: await r.json().catch(() => null) };
};

let client;
const timer = setTimeout(() => { console.log("FAIL timed out"); process.exit(1); }, 120000);
try {
  const s = await http("POST", "/sessions", { url: "http://localhost:3000/checkout" });
  check("session created over HTTP", s.status === 201, JSON.stringify(s));
  const sid = s.json.id;
  const a = await http("POST", `/sessions/${sid}/annotations`, {
    comment: "Pay button is cut off on mobile", element: "button", elementPath: "main > form > button.pay",
    timestamp: Date.now(), x: 40, y: 300, url: "http://localhost:3000/checkout", severity: "blocking", intent: "fix",
  });
  check("annotation created over HTTP", a.status === 201, JSON.stringify(a));
  const aid = a.json.id;

  const cli = join(prefix, "node_modules", "agentation-mcp", "dist", "cli.js");
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, "server", "--mcp-only", "--http-url", base], stderr: "ignore" });
  client = new Client({ name: "pinpoint-ci", version: "0.1.0" });
  await client.connect(transport);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  check("agentation tools listed", tools.includes("agentation_resolve") && tools.includes("agentation_get_pending"), tools.join(","));
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    const text = (r.content || []).map((c) => c.text || "").join("");
    return { error: !!r.isError, text };
  };
  let r = await call("agentation_list_sessions", {});
  check("list_sessions sees the session", !r.error && r.text.includes(sid), r.text.slice(0, 300));
  r = await call("agentation_get_pending", { sessionId: sid });
  check("get_pending sees the annotation", !r.error && r.text.includes(aid) && r.text.includes("cut off"), r.text.slice(0, 300));
  r = await call("agentation_get_all_pending", {});
  check("get_all_pending", !r.error && r.text.includes(aid), r.text.slice(0, 300));
  r = await call("agentation_acknowledge", { annotationId: aid });
  check("acknowledge", !r.error, r.text);
  let got = await http("GET", `/annotations/${aid}`);
  check("status acknowledged in Pinpoint", got.json && got.json.status === "acknowledged", JSON.stringify(got.json));
  r = await call("agentation_reply", { annotationId: aid, message: "Is this on iOS only?" });
  check("reply", !r.error, r.text);
  r = await call("agentation_resolve", { annotationId: aid, summary: "Button wraps below 360 px now" });
  check("resolve", !r.error, r.text);
  got = await http("GET", `/annotations/${aid}`);
  const thread = (got.json && got.json.thread) || [];
  check("resolved in Pinpoint", got.json && got.json.status === "resolved", JSON.stringify(got.json));
  check("reply in the thread", thread.some((m) => m.content === "Is this on iOS only?"), JSON.stringify(thread));
  r = await call("agentation_get_session", { sessionId: "no-such-session" });
  check("unknown session is a tool error", r.error || /not found|404/i.test(r.text), r.text);
} catch (e) {
  check("ran to the end", false, String(e && e.stack || e));
} finally {
  clearTimeout(timer);
  if (client) await client.close().catch(() => {});
  server.kill("SIGTERM");
}
console.log(`agentation-mcp: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
