#!/usr/bin/env node
// Records the HTTP requests an agent sends to the gateway, unchanged, for request-class fixtures.
// Usage (as the agent command of relax rollout): node record-requests.mjs <agent command...>
// Starts a pass-through proxy on 127.0.0.1, points the agent's RELAX_BASE_URL at it, and appends every
// request ({method, path, headers, body}) as one JSON line to $HARNESS_RECORD_DIR/<RELAX_SESSION_ID>.jsonl.
// Responses (SSE included) are streamed back untouched.
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { join } from "node:path";

const env = process.env;
const dir = env.HARNESS_RECORD_DIR;
const upstream = env.RELAX_BASE_URL;
if (!dir || !upstream || process.argv.length < 3)
  throw new Error("record-requests: needs HARNESS_RECORD_DIR, RELAX_BASE_URL and an agent command");
mkdirSync(dir, { recursive: true });
const file = join(dir, `${env.RELAX_SESSION_ID ?? "session"}.jsonl`);
const target = new URL(upstream);
const base = target.pathname.replace(/\/+$/, "");

const server = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  let parsed = null;
  try {
    parsed = body.length > 0 ? JSON.parse(body.toString("utf8")) : null;
  } catch {
    parsed = body.toString("utf8");
  }
  appendFileSync(
    file,
    `${JSON.stringify({ method: req.method, path: req.url, headers: req.headers, body: parsed })}\n`,
  );
  const forward = httpRequest(
    {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: target.host },
    },
    (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    },
  );
  forward.on("error", () => res.destroy());
  forward.end(body);
});
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  const [command, ...args] = process.argv.slice(2);
  const child = spawn(command, args, {
    stdio: "inherit",
    env: { ...env, RELAX_BASE_URL: `http://127.0.0.1:${port}${base}` },
  });
  child.on("exit", (code, signal) => {
    server.close();
    process.exit(code ?? (signal ? 128 : 1));
  });
});
