// Tests of tools/quiet-build.mjs's argument parsing and cache reading (`node --test`, no build needed).
import assert from "node:assert/strict";
import { test } from "node:test";
import { missingBuilds, parseArgs } from "./quiet-build.mjs";

test("phases are <label>=<filter>[,<filter>…], in order; a malformed one is refused by name", () => {
  assert.deepEqual(
    parseArgs(["the libraries=./packages/*", "the CLI and examples=@relax/gateway...,./examples/*"]),
    {
      phases: [
        { label: "the libraries", filters: ["./packages/*"] },
        { label: "the CLI and examples", filters: ["@relax/gateway...", "./examples/*"] },
      ],
    },
  );
  assert.throws(() => parseArgs(["no-filter"]), /phase "no-filter" must be <label>=<turbo filter>/);
  assert.throws(() => parseArgs(["label="]), /phase "label=" must be/);
  assert.throws(() => parseArgs([]), /at least one/);
});

test("only build tasks that have a script and are not cache hits count as to be built", () => {
  const dry = {
    tasks: [
      { taskId: "@relax/chat#build", package: "@relax/chat", command: "tsup", cache: { status: "HIT" } },
      {
        taskId: "@relax/view#build",
        package: "@relax/view",
        command: "node x && tsup",
        cache: { status: "MISS" },
      },
      {
        taskId: "@relax/py#build",
        package: "@relax/py",
        command: "<NONEXISTENT>",
        cache: { status: "MISS" },
      },
      { taskId: "@relax/forest#build", package: "@relax/forest", command: "tsup", cache: { status: "MISS" } },
    ],
  };
  assert.deepEqual(missingBuilds(dry), ["@relax/forest", "@relax/view"]);
});
