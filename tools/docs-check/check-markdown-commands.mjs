#!/usr/bin/env node
// Checks every shell command in the repository's Markdown (```sh / bash / shell / console blocks) against
// the built repository, so a README never shows a flag, script, package or path that is gone:
//
// - the relax CLI (`node apps/gateway/dist/cli.js <command>`, `pnpm relax <command>`, `relax <command>`) and
//   the stand-in's (`node packages/standin/dist/cli.js`, `relax-sglang-standin`): the command exists and every
//   `--flag` is in its `--help`;
// - `pnpm <script>` is a root script or a pnpm command; `pnpm --filter <pkg>[...] <script>` names a workspace
//   package that has the script;
// - `node <file>` / `python3 <file>` and every repository path among the arguments (`examples/…`,
//   `apps/…`, `packages/…`, `clients/…`, `docs/…`, `tools/…`, also after `$PWD/`) exist;
// - anything else must be a known outside tool (npm, pip, apt-get, kill, printf, …) or is reported.
//
// Needs the build (dist/) first, as `pnpm test` provides; run alone:
// `pnpm turbo run build --filter=@relax-tools/docs-check^... && node tools/docs-check/check-markdown-commands.mjs`.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { listMarkdownFiles } from "./list-markdown-files.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");

/** Tools from outside the repository a command may start with; their own flags are not checked here. */
export const OUTSIDE_TOOLS = new Set([
  "npm",
  "npx",
  "pip",
  "pip3",
  "apt-get",
  "kill",
  "cd",
  "printf",
  "echo",
  "export",
  "mkdir",
  "cat",
  "curl",
  "claude",
  "codex",
  "qwen",
  "opencode",
]);

/** pnpm's own commands (not package scripts). */
const PNPM_COMMANDS = new Set(["install", "i", "add", "exec", "dlx", "run", "turbo", "-r", "--version"]);

/**
 * The shell blocks of a Markdown text with their first line number.
 * @param {string} markdown
 * @returns {{ line: number, text: string }[]}
 */
export function shellBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^\s*```(sh|bash|shell|console)\s*$/);
    if (!open) continue;
    const body = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]); j++) body.push(lines[j]);
    blocks.push({ line: i + 2, text: body.join("\n") });
    i = j;
  }
  return blocks;
}

/**
 * Splits a shell block into commands (continuation lines joined, comments dropped, split on `&&`, `||`,
 * `;`, `|` and a trailing `&` outside quotes), each as words with the quotes removed.
 * @param {string} text
 * @returns {string[][]}
 */
export function shellCommands(text) {
  const commands = [];
  let words = [];
  let word = "";
  let inWord = false;
  let quote = "";
  const source = text.replace(/\\\n/g, " ");
  const endWord = () => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (quote !== "") {
      if (char === quote) quote = "";
      else word += char;
      continue;
    }
    if (char === '"' || char === "'") {
      quote = char;
      inWord = true;
    } else if (char === "#" && !inWord) {
      while (i < source.length && source[i] !== "\n") i++;
      endCommand();
    } else if (char === "\n" || char === ";" || char === "|" || char === "&") {
      if ((char === "&" || char === "|") && source[i + 1] === char) i++;
      endCommand();
    } else if (char === " " || char === "\t") endWord();
    else if (char === ">" || char === "<") {
      endWord();
      // A redirection: skip its target word (`> out/x.log`, `2>&1`).
      while (source[i + 1] === ">" || source[i + 1] === "&" || /\d/.test(source[i + 1] ?? "")) i++;
      while (source[i + 1] === " ") i++;
      while (i + 1 < source.length && !/[\s;&|]/.test(source[i + 1])) i++;
    } else {
      if (!inWord && /\d/.test(char) && source[i + 1] === ">") continue; // `2>`
      word += char;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

const helpCache = new Map();
function helpOf(cli, command) {
  const key = `${cli} ${command ?? ""}`;
  if (!helpCache.has(key)) {
    const args = [join(root, cli), ...(command ? [command] : []), "--help"];
    let text = "";
    try {
      text = execFileSync("node", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    } catch (error) {
      text = `${error.stdout ?? ""}`;
      if (text === "") throw new Error(`node ${args.join(" ")} failed: ${error.message}`);
    }
    helpCache.set(key, text);
  }
  return helpCache.get(key);
}

const workspacePackages = (() => {
  const found = new Map();
  for (const dir of ["apps", "packages", "examples", "clients", "tools"]) {
    if (!existsSync(join(root, dir))) continue;
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const manifest = join(root, dir, entry.name, "package.json");
      if (!entry.isDirectory() || !existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, "utf8"));
      found.set(pkg.name, { dir: `${dir}/${entry.name}`, scripts: pkg.scripts ?? {} });
    }
  }
  return found;
})();
const rootScripts = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts ?? {};

const REPO_PATH = /^(?:\$PWD\/|\.\/)?((?:examples|apps|packages|clients|docs|tools)\/[^\s{}*$]+)$/;

/** Problems with one command (words), as messages; `[]` when it checks out. */
export function checkCommand(words) {
  const problems = [];
  let rest = words;
  while (rest.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(rest[0])) rest = rest.slice(1); // `VAR=value cmd`
  if (rest.length === 0) return problems;
  const [first, second, third] = rest;
  const checkFlags = (cli, command, args) => {
    const help = helpOf(cli, command);
    for (const arg of args) {
      const flag = arg.match(/^(--[a-z0-9-]+)/)?.[1];
      if (flag === undefined || flag === "--help") continue;
      const negated = flag.replace(/^--no-/, "--");
      if (!new RegExp(`(^|[\\s,])(${flag}|${negated})([\\s=<\\[]|$)`, "m").test(help))
        problems.push(`${[cli, command].filter(Boolean).join(" ")}: no flag ${flag} in its --help`);
    }
  };
  const checkPaths = (args) => {
    for (const arg of args) {
      const path = arg.match(REPO_PATH)?.[1]?.replace(/#.*$/, "");
      if (path !== undefined && !existsSync(join(root, path))) problems.push(`no such file: ${path}`);
    }
  };
  const relaxCli = "apps/gateway/dist/cli.js";
  const standinCli = "packages/standin/dist/cli.js";
  if (
    (first === "node" && second === relaxCli) ||
    (first === "pnpm" && second === "relax") ||
    first === "relax"
  ) {
    const args = first === "relax" ? rest.slice(1) : rest.slice(2);
    const command = args[0];
    if (command === undefined || command.startsWith("-")) return problems;
    if (!new RegExp(`^\\s+${command}\\b`, "m").test(helpOf(relaxCli)))
      return [`relax: no command ${command}`];
    checkFlags(relaxCli, command, args.slice(1));
    checkPaths(args.slice(1));
  } else if ((first === "node" && second === standinCli) || first === "relax-sglang-standin") {
    const args = first === "node" ? rest.slice(2) : rest.slice(1);
    checkFlags(standinCli, undefined, args);
    checkPaths(args);
  } else if (first === "pnpm") {
    if (second === "--filter") {
      const name = (third ?? "").replace(/^\.\.\.|\^?\.\.\.$/g, "").replace(/\^$/, "");
      const pkg = workspacePackages.get(name);
      const script = rest[3];
      if (pkg === undefined) problems.push(`pnpm --filter ${third}: no workspace package ${name}`);
      else if (script !== undefined && !PNPM_COMMANDS.has(script) && !(script in pkg.scripts))
        problems.push(`pnpm --filter ${third} ${script}: ${name} has no script ${script}`);
    } else if (second !== undefined && !PNPM_COMMANDS.has(second) && !(second in rootScripts)) {
      problems.push(`pnpm ${second}: no such root script or pnpm command`);
    }
  } else if (first === "node" || first === "python3" || first === "python") {
    if (second === "-m") return problems; // a stdlib module (`python3 -m venv …`)
    const file = (second ?? "").replace(/^\$PWD\//, "");
    if (!existsSync(join(root, file))) problems.push(`${first} ${second}: no such file`);
    checkPaths(rest.slice(2));
  } else if (first.startsWith("/tmp/") || OUTSIDE_TOOLS.has(first)) {
    // An outside tool, or one a block installed into a temporary venv.
  } else if (first.startsWith("--")) {
    // A flag list for another program (e.g. slime's `--rollout-function-path …`): not a command.
  } else {
    problems.push(`${first}: not a repository command nor a known outside tool (add it to OUTSIDE_TOOLS)`);
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = [];
  let checked = 0;
  for (const file of listMarkdownFiles(root)) {
    for (const block of shellBlocks(readFileSync(join(root, file), "utf8"))) {
      for (const words of shellCommands(block.text)) {
        checked++;
        for (const problem of checkCommand(words)) problems.push(`${file}:${block.line}: ${problem}`);
      }
    }
  }
  if (problems.length > 0) {
    process.stderr.write(
      `${problems.join("\n")}\n${problems.length} problem(s) in Markdown shell commands\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`markdown commands: ${checked} checked against the build\n`);
}
