import type { ChatTemplateKwargs } from "../messages/function-tool";
import { CanonicalizationError } from "./canonicalization-error";
import { isPlainObject, typeName } from "./json-guards";
import { compareCodePoints } from "./stable-stringify";

/**
 * Template variables Relax manages itself; a request may not set them (400; see
 * docs/contract.md#chat-completions).
 */
export const RESERVED_TEMPLATE_KWARGS: readonly string[] = ["add_generation_prompt", "tokenize", "tools"];

/**
 * Canonical chat-template kwargs: a plain object with keys sorted recursively (arrays keep their order),
 * values kept verbatim. `null`/absent gives `{}`.
 *
 * @throws CanonicalizationError for a non-object, a reserved key ({@link RESERVED_TEMPLATE_KWARGS}) or a
 *   value that is not JSON (functions, non-finite numbers).
 */
export function canonicalizeTemplateKwargs(raw: unknown, path = "chat_template_kwargs"): ChatTemplateKwargs {
  if (raw === undefined || raw === null) return {};
  if (!isPlainObject(raw)) {
    throw new CanonicalizationError({ path, reason: `must be an object, got ${typeName(raw)}` });
  }
  for (const key of RESERVED_TEMPLATE_KWARGS) {
    if (Object.hasOwn(raw, key)) {
      throw new CanonicalizationError({
        path: `${path}.${key}`,
        reason: `is managed by Relax and may not be set (reserved: ${RESERVED_TEMPLATE_KWARGS.join(", ")})`,
      });
    }
  }
  return sortDeep(raw, path) as ChatTemplateKwargs;
}

/** Mixes configured defaults under request kwargs (`{...defaults, ...request}`), then canonicalises. */
export function mergeTemplateKwargs(defaults: unknown, request: unknown, path?: string): ChatTemplateKwargs {
  return canonicalizeTemplateKwargs(
    {
      ...canonicalizeTemplateKwargs(defaults, "apply_chat_template_kwargs"),
      ...canonicalizeTemplateKwargs(request, path),
    },
    path,
  );
}

function sortDeep(value: unknown, path: string): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      throw new CanonicalizationError({ path, reason: `number ${value} is not finite` });
    return value;
  }
  if (Array.isArray(value)) return value.map((item, i) => sortDeep(item, `${path}[${i}]`));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value).sort(compareCodePoints)) {
      if (value[key] !== undefined) out[key] = sortDeep(value[key], `${path}.${key}`);
    }
    return out;
  }
  throw new CanonicalizationError({ path, reason: `${typeName(value)} is not a JSON value` });
}
