import { describeErrorContract } from "@relax-tools/error-conformance";
import { expect, it } from "vitest";
import * as exporting from "../index";

describeErrorContract(
  {
    packageName: "@relax/export",
    exports: exporting,
    cases: [
      {
        name: "AdvantageResultError",
        error: new exporting.AdvantageResultError({ path: "result[0]", reason: "bad" }),
        ancestors: ["FieldError"],
      },
      { name: "ExportConfigError", error: new exporting.ExportConfigError({ issues: [] }) },
      { name: "FunctionLoadError", error: new exporting.FunctionLoadError({ spec: "x#y", reason: "r" }) },
      {
        name: "GroupSizeError",
        error: new exporting.GroupSizeError({ groupIndex: 0, expected: 2, actual: 1 }),
      },
      {
        name: "RewardValueError",
        error: new exporting.RewardValueError({ path: "reward", reason: "bad" }),
        ancestors: ["FieldError"],
      },
      { name: "RowParseError", error: new exporting.RowParseError({ line: 1, path: "", reason: "r" }) },
    ],
  },
  () => {
    it("should write field errors as `path: reason`", () => {
      expect(new exporting.RewardValueError({ path: "metadata.score", reason: "NaN" }).message).toBe(
        "metadata.score: NaN",
      );
    });
  },
);
