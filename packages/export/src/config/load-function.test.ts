import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FunctionLoadError } from "../errors/function-load-error";
import { loadFunction } from "./load-function";
import { resolveExportFunctions } from "./resolve-export-functions";

const fixtures = fileURLToPath(new URL("../../test/fixtures/", import.meta.url));

describe("loadFunction", () => {
  it("should load a named export relative to baseDir", async () => {
    const advantage = await loadFunction<(slots: unknown[]) => unknown>({
      spec: "./seed-advantage.mjs#advantageFunc",
      baseDir: fixtures,
    });
    expect(advantage([{ main: { outcome: 1 }, searcher_0: { usefulness: 0.5 } }])).toEqual([
      { main: 1, searcher_0: 0.5 },
    ]);
  });

  it("should load the default export when the spec has no #", async () => {
    const advantage = await loadFunction<(slots: unknown[]) => Promise<unknown>>({
      spec: `${fixtures}seed-advantage.mjs`,
    });
    expect(await advantage([{ a: {} }])).toEqual([{ a: 0 }]);
  });

  it.each([
    [
      "./seed-advantage.mjs#missing",
      '"./seed-advantage.mjs" has no export "missing" (function exports: advantageFunc, default)',
    ],
    ["./seed-advantage.mjs#notAFunction", 'export "notAFunction" is a number, not a function'],
    ["./nowhere.mjs#f", 'import of "./nowhere.mjs" failed'],
    ["a#b#c", '"a#b#c" has more than one "#"'],
  ])("should explain why %s cannot be loaded", async (spec, message) => {
    const load = loadFunction({ spec, baseDir: fixtures });
    await expect(load).rejects.toThrow(FunctionLoadError);
    await expect(loadFunction({ spec, baseDir: fixtures })).rejects.toThrow(message);
  });
});

describe("resolveExportFunctions", () => {
  it("should load strings, pass functions through, and route customRm by groupRm", async () => {
    const inline = () => 1;
    const single = await resolveExportFunctions(
      { customRm: inline, groupRm: false, customAdvantage: "./seed-advantage.mjs#advantageFunc" },
      { baseDir: fixtures },
    );
    expect(single.reward).toBe(inline);
    expect(single.groupReward).toBeUndefined();
    expect(typeof single.advantage).toBe("function");
    const grouped = await resolveExportFunctions({
      customRm: inline,
      groupRm: true,
      customAdvantage: undefined,
    });
    expect(grouped).toEqual({ groupReward: inline });
  });

  it("should load the side-credit function (--request-class-credit-path)", async () => {
    const functions = await resolveExportFunctions(
      {
        groupRm: false,
        customRm: undefined,
        customAdvantage: undefined,
        sideCredit: "./side-credit.mjs#sideCredit",
      },
      { baseDir: fixtures },
    );
    expect(Object.keys(functions)).toEqual(["sideCredit"]);
    const credit = functions.sideCredit!;
    const main = { name: null, reward: 1, advantage: 0.5, metadata: {} };
    const input = {
      name: "compaction:0",
      sessionId: "s",
      slot: 0,
      groupIndex: 0,
      stateHash: "h",
      numTurns: 1,
    };
    const base = { ...input, generatedTokens: 4, main, group: [] };
    expect(await credit({ ...base, requestClass: "compaction" })).toBe(0.25);
    expect(await credit({ ...base, requestClass: "subagent" })).toBe(0.5);
  });
});
