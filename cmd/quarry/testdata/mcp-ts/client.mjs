// An independent MCP client: the official TypeScript SDK connects to
// Quarry's /mcp over Streamable HTTP with a bearer token, lists the tools
// and calls research, counting progress notifications. It prints one JSON
// object for the Go test to check.
//
//   node client.mjs URL TOKEN QUESTION ENGINE
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, question, engine] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "quarry-ts-test", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const progress = [];
const started = Date.now();
let firstProgressMs = -1;
const result = await client.callTool(
  { name: "research", arguments: { question, depth: "quick", engines: [engine] } },
  undefined,
  {
    timeout: 180000,
    resetTimeoutOnProgress: true,
    onprogress: (p) => {
      if (firstProgressMs < 0) firstProgressMs = Date.now() - started;
      progress.push({ progress: p.progress, message: p.message });
    },
  },
);
console.log(JSON.stringify({
  tools: tools.map((t) => t.name),
  isError: result.isError ?? false,
  structured: result.structuredContent,
  text: result.content?.[0]?.text ?? "",
  progress,
  firstProgressMs,
  resultMs: Date.now() - started,
}));
await client.close();
