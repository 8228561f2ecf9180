import { describeErrorContract } from "@relax-tools/error-conformance";
import * as rollout from "../index";

describeErrorContract({
  packageName: "@relax/rollout",
  exports: rollout,
  cases: [
    { name: "ConfigError", error: new rollout.ConfigError({ message: "--port: not a number" }) },
    {
      name: "ControlError",
      error: new rollout.ControlError({
        code: "step_out_of_order",
        message: "rollout_id 3 asked, next is 2",
      }),
    },
    {
      name: "DatasetError",
      error: new rollout.DatasetError({ file: "d.jsonl", line: 2, reason: "not JSON" }),
    },
    {
      name: "EvalFunctionError",
      error: new rollout.EvalFunctionError({ spec: "f.mjs#score", dataset: "math", reason: "threw" }),
    },
    { name: "RolloutInterruptedError", error: new rollout.RolloutInterruptedError({ message: "SIGINT" }) },
    {
      name: "RolloutStalledError",
      error: new rollout.RolloutStalledError({ message: "every Group failed" }),
    },
    {
      name: "StepOrderError",
      error: new rollout.StepOrderError({ message: "rollout_id 3 asked, next is 2" }),
    },
    {
      name: "UnknownEvalDatasetError",
      error: new rollout.UnknownEvalDatasetError({ names: ["x"], known: ["math"] }),
    },
  ],
});
