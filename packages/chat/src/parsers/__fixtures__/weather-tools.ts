import type { FunctionTool } from "../../messages/function-tool";

/** Tools shared by the parser tests: typed parameters exercise the schema-typed formats. */
export const weatherTools: FunctionTool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Weather for a city.",
      parameters: {
        type: "object",
        properties: {
          city: { type: "string" },
          days: { type: "integer" },
          metric: { type: "boolean" },
          threshold: { type: "number" },
          tags: { type: "array", items: { type: "string" } },
          options: { type: "object" },
          note: { type: ["string", "null"] },
        },
        required: ["city"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "get_time",
      parameters: { type: "object", properties: { tz: { type: "string" } } },
    },
  },
];
