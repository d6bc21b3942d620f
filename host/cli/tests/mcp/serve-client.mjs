// Drives `pi mcp serve` with the official MCP TypeScript SDK client, the way Claude Code or
// codex would: spawns the server over stdio (StdioClientTransport), runs the steps of a plan and
// prints one JSON object with what it saw. Used by host/cli/tests/all/cli_mcp_serve.rs.
//
// Usage: node serve-client.mjs <sdk-dir> <plan.json>
// The plan: {"command", "args", "cwd", "env", "steps": [...]}, a step being one of
//   {"list": true}                                      tools/list
//   {"call": name, "arguments": {...}}                  tools/call
//   {"call": name, "arguments": {...}, "abortAfterMs": n}  the call aborted (notifications/cancelled)
//   {"call": name, "arguments": {...}, "progress": true}   with a progressToken; the notifications kept
//   {"waitGone": text, "timeoutMs": n}                  polls the process table until no command line holds text
// Output: {"server", "instructions", "results": [one per step], "stderr"}.

import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [sdkDir, planFile] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile, "utf8"));
const load = (path) => import(pathToFileURL(join(sdkDir, "dist/esm", path)).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");

const transport = new StdioClientTransport({
  command: plan.command,
  args: plan.args,
  cwd: plan.cwd,
  env: plan.env,
  stderr: "pipe",
});
let stderr = "";
transport.stderr?.on("data", (chunk) => (stderr += chunk));
const client = new Client({ name: "pi-serve-test", version: "1.0.0" });
await client.connect(transport);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const running = (text) =>
  execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
    .split("\n")
    .some((line) => line.includes(text) && !line.includes("ps -eo"));

async function step(s) {
  if (s.list) {
    return (await client.listTools()).tools;
  }
  if (s.call !== undefined) {
    const controller = new AbortController();
    if (s.abortAfterMs !== undefined) {
      setTimeout(() => controller.abort("test"), s.abortAfterMs);
    }
    const started = Date.now();
    const progress = [];
    const options = { signal: controller.signal, timeout: 60000 };
    if (s.progress) {
      options.onprogress = (p) => progress.push(p);
    }
    try {
      const result = await client.callTool(
        { name: s.call, arguments: s.arguments ?? {} },
        undefined,
        options,
      );
      return { result, progress, ms: Date.now() - started };
    } catch (error) {
      return { error: String(error?.message ?? error), ms: Date.now() - started };
    }
  }
  if (s.waitGone !== undefined) {
    const deadline = Date.now() + (s.timeoutMs ?? 5000);
    const wasRunning = running(s.waitGone);
    while (running(s.waitGone)) {
      if (Date.now() > deadline) return { gone: false, wasRunning };
      await sleep(50);
    }
    return { gone: true, wasRunning };
  }
  throw new Error(`unknown step ${JSON.stringify(s)}`);
}

const results = [];
for (const s of plan.steps) {
  results.push(await step(s));
}
const out = {
  server: client.getServerVersion(),
  instructions: client.getInstructions(),
  results,
};
await client.close();
out.stderr = stderr;
process.stdout.write(JSON.stringify(out) + "\n");
