import type { FunctionTool } from "../messages/function-tool";
import { CanonicalizationError } from "./canonicalization-error";
import { isPlainObject, typeName } from "./json-guards";
import { hasLoneSurrogate } from "./strict-json";

/** Options of {@link canonicalizeTools}. */
export interface CanonicalizeToolsOptions {
  /** Path prefix for error messages. @default "tools" */
  path?: string;
  /** Called for each non-function tool that is dropped (e.g. `{type: "web_search"}`). */
  onDropped?: (info: { path: string; type: unknown }) => void;
}

/** The parameters a tool without `parameters` takes: none (OpenAI: "omitting defines an empty list"). */
export const EMPTY_TOOL_PARAMETERS: Readonly<Record<string, unknown>> = Object.freeze({
  type: "object",
  properties: {},
});

/**
 * Projects Chat-shaped tools (`{type: "function", function: {name, description?, parameters?}}`) to
 * canonical {@link FunctionTool}s (see docs/contract.md#chat-completions): fields other than
 * `name`, `description` and `parameters` (`strict`, …) are dropped, non-function tools are dropped
 * (reported through `onDropped`), `description: null` is removed, absent `parameters` become
 * {@link EMPTY_TOOL_PARAMETERS}. The key order inside `parameters` is kept, since it is what the model
 * reads in the rendered prompt; state hashes sort keys anyway.
 *
 * @throws CanonicalizationError for a non-list, a tool without a name, a duplicate name, or
 *   `parameters` that is not an object.
 */
export function canonicalizeTools(raw: unknown, options: CanonicalizeToolsOptions = {}): FunctionTool[] {
  const { path = "tools", onDropped } = options;
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    throw new CanonicalizationError({ path, reason: `must be a list of tools, got ${typeName(raw)}` });
  }
  const tools: FunctionTool[] = [];
  const names = new Set<string>();
  raw.forEach((tool, i) => {
    const toolPath = `${path}[${i}]`;
    if (!isPlainObject(tool)) {
      throw new CanonicalizationError({
        path: toolPath,
        reason: `must be a tool object, got ${typeName(tool)}`,
      });
    }
    if (tool.type !== "function") {
      onDropped?.({ path: toolPath, type: tool.type });
      return;
    }
    const fn = tool.function;
    if (!isPlainObject(fn)) {
      throw new CanonicalizationError({
        path: `${toolPath}.function`,
        reason: `must be an object, got ${typeName(fn)}`,
      });
    }
    if (typeof fn.name !== "string" || fn.name.length === 0 || hasLoneSurrogate(fn.name)) {
      throw new CanonicalizationError({
        path: `${toolPath}.function.name`,
        reason: "must be a non-empty string",
      });
    }
    if (names.has(fn.name)) {
      throw new CanonicalizationError({
        path: `${toolPath}.function.name`,
        reason: `duplicate tool name ${JSON.stringify(fn.name)}`,
      });
    }
    names.add(fn.name);
    if (fn.description !== undefined && fn.description !== null && typeof fn.description !== "string") {
      throw new CanonicalizationError({
        path: `${toolPath}.function.description`,
        reason: "must be a string",
      });
    }
    const parameters = fn.parameters ?? EMPTY_TOOL_PARAMETERS;
    if (!isPlainObject(parameters)) {
      throw new CanonicalizationError({
        path: `${toolPath}.function.parameters`,
        reason: `must be a JSON Schema object, got ${typeName(parameters)}`,
      });
    }
    tools.push({
      type: "function",
      function: {
        name: fn.name,
        ...(typeof fn.description === "string" ? { description: fn.description } : {}),
        parameters: structuredClone(parameters) as Record<string, unknown>,
      },
    });
  });
  return tools;
}
