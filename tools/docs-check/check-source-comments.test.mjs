import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isSourceFile, sourceProblems } from "./check-source-comments.mjs";

const contractAnchors = new Set(["session-lifecycle", "deviations"]);
const check = (text) => sourceProblems({ file: "src/a.ts", text, contractAnchors });

describe("sourceProblems", () => {
  it("should accept a comment that links an existing anchor of docs/contract.md", () => {
    assert.deepEqual(
      check("/**\n * Runs a Group (see docs/contract.md#session-lifecycle).\n */\nexport {};\n"),
      [],
    );
  });

  it("should report a numbered seed, in any case and in a test name, with its line", () => {
    assert.deepEqual(
      check('const a = 1;\n// see seed 000 "Buffered SSE"\nit("Seed 002 hooks", () => {});\n'),
      [
        'src/a.ts:2: refers to a spec "seed" document; link docs/contract.md#<anchor> instead',
        'src/a.ts:3: refers to a spec "seed" document; link docs/contract.md#<anchor> instead',
      ],
    );
  });

  it("should report the seed's possessive, a skill seed and the reference notes", () => {
    const problems = check("// the seed's defaults\n// skill seed 1\n// reference §4 timeouts\n");
    assert.deepEqual(
      problems.map((problem) => problem.split(":").slice(0, 2).join(":")),
      ["src/a.ts:1", "src/a.ts:2", "src/a.ts:3"],
    );
  });

  it("should report a missing anchor of docs/contract.md", () => {
    assert.deepEqual(check("// see docs/contract.md#session-lifecycles\n"), [
      "src/a.ts:1: docs/contract.md has no anchor #session-lifecycles",
    ]);
  });

  it("should allow the Python Relax only in a comment block that links the deviations", () => {
    assert.deepEqual(
      check("/**\n * Unlike the Python Relax, X.\n *\n * See docs/contract.md#deviations.\n */\n"),
      [],
    );
    const problems = check(
      "const x = 1;\n/** As the Python Relax does. */\nconst y = 2;\n// docs/contract.md#deviations\n",
    );
    assert.equal(problems.length, 1);
    assert.match(problems[0], /^src\/a\.ts:2: names the Python Relax/);
  });

  it("should read TypeScript, JavaScript and Python sources only", () => {
    assert.deepEqual(
      ["a.ts", "a.mts", "a.tsx", "a.mjs", "a.cjs", "a.js", "a.py", "a.json", "a.md", "a.d.ts.map"].filter(
        isSourceFile,
      ),
      ["a.ts", "a.mts", "a.tsx", "a.mjs", "a.cjs", "a.js", "a.py"],
    );
  });
});
