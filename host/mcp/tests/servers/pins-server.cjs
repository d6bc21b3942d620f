// A small MCP server over stdio for pi-mcp's tests, written with the official TypeScript SDK
// (found through NODE_PATH). `describe` takes its description from PIN_TOOL_DESCRIPTION, so a
// test can change a tool's definition between runs; `add-tool` registers another tool, which
// makes the SDK send `notifications/tools/list_changed`; with PIN_SPAWN_CHILD=1 the server
// starts a child that ignores stdin closing and SIGTERM (to check that stopping kills the whole
// group);
// `write-file` shows whether the server may write (the sandbox test); `wait` writes the reason
// of its cancellation to PIN_CANCEL_FILE.
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { z } = require("zod");

const server = new McpServer({ name: "pins-server", version: "1.0.0" });
server.registerTool(
  "describe",
  {
    description: process.env.PIN_TOOL_DESCRIPTION ?? "Describes things.",
    inputSchema: { what: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ what }) => ({ content: [{ type: "text", text: `described ${what}` }] }),
);
server.registerTool("add-tool", { description: "Adds the tool `extra`." }, async () => {
  server.registerTool("extra", { description: "Added later." }, async () => ({
    content: [{ type: "text", text: "extra" }],
  }));
  return { content: [{ type: "text", text: "added" }] };
});
server.registerTool(
  "write-file",
  { description: "Writes `x` to a file.", inputSchema: { path: z.string() } },
  async ({ path }) => {
    try {
      require("node:fs").writeFileSync(path, "x");
      return { content: [{ type: "text", text: "wrote" }] };
    } catch (error) {
      return { content: [{ type: "text", text: `refused: ${error.code}` }] };
    }
  },
);
server.registerTool("wait", { description: "Waits until cancelled." }, async (extra) =>
  new Promise((resolve) => {
    extra.signal.addEventListener("abort", () => {
      require("node:fs").writeFileSync(process.env.PIN_CANCEL_FILE, String(extra.signal.reason ?? "aborted"));
      resolve({ content: [{ type: "text", text: "cancelled" }] });
    });
  }),
);
if (process.env.PIN_SPAWN_CHILD === "1") {
  const { spawn } = require("node:child_process");
  spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)", "--", ...process.argv.slice(2)], {
    stdio: ["ignore", "ignore", "ignore"],
  });
}
console.error("pins-server ready");
server.connect(new StdioServerTransport());
