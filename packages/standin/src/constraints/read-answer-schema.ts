/**
 * The JSON Schema (as JSON text) that a `/generate` request constrains its final answer to, for policies
 * that must answer in it: `sampling_params.json_schema`, or the answer branch of a `structural_tag` — the
 * first `json_schema` reached from the top through `or` and `sequence` only (the tool-call tags Relax puts
 * beside it hold the tools' argument schemas inside `tag`s, which are not entered). `undefined` without
 * either, or for a `structural_tag` that is not JSON.
 *
 * @example
 * const schema = readAnswerSchema(request.sampling);
 * return schema === undefined ? "Done." : JSON.stringify({ answer: "Done." });
 */
export function readAnswerSchema(
  sampling: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  const jsonSchema = sampling?.json_schema;
  if (typeof jsonSchema === "string") return jsonSchema;
  const tag = sampling?.structural_tag;
  if (typeof tag !== "string") return undefined;
  try {
    const schema = answerSchemaOf((JSON.parse(tag) as { format?: unknown }).format);
    return schema === undefined ? undefined : JSON.stringify(schema);
  } catch {
    return undefined;
  }
}

function answerSchemaOf(format: unknown): unknown {
  if (typeof format !== "object" || format === null) return undefined;
  const node = format as { type?: unknown; json_schema?: unknown; elements?: unknown };
  if (node.type === "json_schema") return node.json_schema;
  if ((node.type === "or" || node.type === "sequence") && Array.isArray(node.elements)) {
    for (const element of node.elements) {
      const schema = answerSchemaOf(element);
      if (schema !== undefined) return schema;
    }
  }
  return undefined;
}
