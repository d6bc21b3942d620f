// A small MCP server for pi's tests, built on the official TypeScript SDK (found through
// MCP_NODE_MODULES, the folder .ci/run installs it in). What it offers comes from the
// environment, so one script plays a server that changed its definitions, one that is slow to
// start, and one that exits at once:
//   TOOL_NAME         the name of its `lookup` tool
//   TOOL_DESCRIPTION  the description of its `lookup` tool
//   START_DELAY_MS    how long it waits before it answers `initialize`
//   EXIT_AT_ONCE      exit with status 3 before reading anything
//   PID_FILE          where it writes its process id
//   PAGED_TOOLS       list N more tools (`page_tool_1` …), two per `tools/list` page
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const modules = process.env.MCP_NODE_MODULES;
const load = (path) => import(pathToFileURL(join(modules, path)).href);
if (process.env.EXIT_AT_ONCE) {
  process.stderr.write("configurable-server: told to exit\n");
  process.exit(3);
}
if (process.env.PID_FILE) writeFileSync(process.env.PID_FILE, String(process.pid));
const { McpServer } = await load("@modelcontextprotocol/sdk/dist/esm/server/mcp.js");
const { StdioServerTransport } = await load("@modelcontextprotocol/sdk/dist/esm/server/stdio.js");
const { z } = await load("zod/index.js");

const delay = Number(process.env.START_DELAY_MS ?? 0);
if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));

const server = new McpServer({ name: "configurable", version: "1.0.0" });
server.registerTool(
  process.env.TOOL_NAME ?? "lookup",
  {
    description: process.env.TOOL_DESCRIPTION ?? "Looks a word up in the glossary",
    inputSchema: { word: z.string().describe("The word") },
    annotations: { readOnlyHint: true },
  },
  async ({ word }) => ({ content: [{ type: "text", text: `glossary: ${word} means ${word.length} letters` }] }),
);
server.registerTool(
  "wait",
  {
    description: "Waits the given number of seconds",
    inputSchema: { seconds: z.number() },
  },
  async ({ seconds }) => {
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    return { content: [{ type: "text", text: "waited" }] };
  },
);
const paged = Number(process.env.PAGED_TOOLS ?? 0);
if (paged > 0) {
  // Replaces the SDK's own `tools/list` (one page) with one answering two tools a page.
  const { ListToolsRequestSchema } = await load("@modelcontextprotocol/sdk/dist/esm/types.js");
  const tools = Array.from({ length: paged }, (_, i) => ({
    name: `page_tool_${i + 1}`,
    description: `Tool ${i + 1} of a paged list`,
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  }));
  server.server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const next = start + 2;
    return { tools: tools.slice(start, next), ...(next < tools.length ? { nextCursor: String(next) } : {}) };
  });
}
await server.connect(new StdioServerTransport());
