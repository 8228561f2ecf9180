// Tests of check-markdown-commands.mjs's rules against the built CLIs (`node --test`, after the build).
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkCommand, shellBlocks, shellCommands } from "./check-markdown-commands.mjs";

test("shell blocks are split into commands: continuations, &&, &, redirections, quotes, comments", () => {
  const [block] = shellBlocks(
    'text\n```sh\nnode a.js --x 1 \\\n  --y "two words" > out/log 2>&1 &\nkill %1 # stop it\n```\n',
  );
  assert.equal(block.line, 3);
  assert.deepEqual(shellCommands(block.text), [
    ["node", "a.js", "--x", "1", "--y", "two words"],
    ["kill", "%1"],
  ]);
  assert.deepEqual(shellCommands("npm i -g pnpm@10 && pnpm install && pnpm demo"), [
    ["npm", "i", "-g", "pnpm@10"],
    ["pnpm", "install"],
    ["pnpm", "demo"],
  ]);
});

test("a relax CLI command is checked against its --help, and its repository paths must exist", () => {
  const base = [
    "node",
    "apps/gateway/dist/cli.js",
    "rollout",
    "--prompt-data",
    "examples/gsm8k-calculator/data/gsm8k-relax.jsonl",
  ];
  assert.deepEqual(checkCommand([...base, "--agent-writes-reward", "--no-progress"]), []);
  assert.deepEqual(checkCommand([...base, "--agent-writes-rewards"]), [
    "apps/gateway/dist/cli.js rollout: no flag --agent-writes-rewards in its --help",
  ]);
  assert.deepEqual(
    checkCommand(["pnpm", "relax", "rollout", "--engine-policy", "examples/nope/dist/policy.js"]),
    ["no such file: examples/nope/dist/policy.js"],
  );
  assert.deepEqual(checkCommand(["relax", "train"]), ["relax: no command train"]);
  assert.deepEqual(checkCommand(["node", "packages/standin/dist/cli.js", "--port", "30000", "--tokens"]), [
    "packages/standin/dist/cli.js: no flag --tokens in its --help",
  ]);
});

test("pnpm scripts, filtered packages, node/python files and unknown tools", () => {
  assert.deepEqual(checkCommand(["pnpm", "demo"]), []);
  assert.deepEqual(checkCommand(["pnpm", "deploy-all"]), [
    "pnpm deploy-all: no such root script or pnpm command",
  ]);
  assert.deepEqual(checkCommand(["pnpm", "--filter", "@relax/view...", "build"]), []);
  assert.deepEqual(checkCommand(["pnpm", "--filter", "@relax/nope", "build"]), [
    "pnpm --filter @relax/nope: no workspace package @relax/nope",
  ]);
  assert.deepEqual(checkCommand(["pnpm", "--filter", "@relax/view", "deploy"]), [
    "pnpm --filter @relax/view deploy: @relax/view has no script deploy",
  ]);
  assert.deepEqual(checkCommand(["OPENAI_BASE_URL=http://x", "node", "examples/nope.js"]), [
    "node examples/nope.js: no such file",
  ]);
  assert.deepEqual(checkCommand(["python3", "examples/python-trainer/trainer.py", "--steps", "3"]), []);
  assert.deepEqual(checkCommand(["rm", "-rf", "out"]), [
    "rm: not a repository command nor a known outside tool (add it to OUTSIDE_TOOLS)",
  ]);
});
