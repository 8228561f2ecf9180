import { describeErrorContract } from "@relax-tools/error-conformance";
import * as sglang from "../index";

const url = "http://127.0.0.1:30000/generate";

describeErrorContract({
  packageName: "@relax/sglang",
  exports: sglang,
  cases: [
    { name: "SglangError", error: new sglang.SglangError({ message: "m" }) },
    {
      name: "SglangApiError",
      error: new sglang.SglangApiError({ status: 400, body: "x", url }),
      ancestors: ["SglangError"],
    },
    {
      name: "ContextLengthError",
      error: new sglang.ContextLengthError({ status: 400, body: "x", url, numbers: {} }),
      ancestors: ["SglangError", "SglangApiError"],
    },
    {
      name: "SglangServerError",
      error: new sglang.SglangServerError({ status: 500, body: "x", url }),
      ancestors: ["SglangError", "SglangApiError"],
    },
    {
      name: "SglangAbortError",
      error: new sglang.SglangAbortError({ sent: false }),
      ancestors: ["SglangError"],
    },
    {
      name: "SglangConnectionError",
      error: new sglang.SglangConnectionError({ url }),
      ancestors: ["SglangError"],
    },
    {
      name: "SglangInvalidArgumentError",
      error: new sglang.SglangInvalidArgumentError({ field: "rid", reason: "bad" }),
      ancestors: ["SglangError"],
    },
    {
      name: "SglangResponseError",
      error: new sglang.SglangResponseError({ url, path: "meta_info", reason: "bad" }),
      ancestors: ["SglangError"],
    },
    {
      name: "SglangTimeoutError",
      error: new sglang.SglangTimeoutError({ url, timeoutMs: 5 }),
      ancestors: ["SglangError"],
    },
  ],
});
