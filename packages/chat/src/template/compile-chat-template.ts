import { Template } from "@huggingface/jinja";
import { ChatTemplateError } from "../errors/chat-template-error";
import { detectContentFormat, type TemplateContentFormat } from "./detect-content-format";

/** A parsed chat template with what Relax learned about it. */
export interface CompiledChatTemplate {
  /** The template source as given. */
  readonly source: string;
  /** The `@huggingface/jinja` template. */
  readonly template: Template;
  /** How the template reads message content. */
  readonly contentFormat: TemplateContentFormat;
}

const MAX_CACHED = 32;
const cache = new Map<string, CompiledChatTemplate>();

/**
 * `{% generation %}…{% endgeneration %}` (transformers' assistant-mask extension) becomes a no-op
 * `{% if true %}…{% endif %}` with the same whitespace control, since `@huggingface/jinja` lacks the tag.
 */
function replaceGenerationTags(source: string): string {
  return source.replace(
    /\{%(-?)\s*(end)?generation\s*(-?)%\}/g,
    (_match, left: string, end: string, right: string) =>
      end ? `{%${left} endif ${right}%}` : `{%${left} if true ${right}%}`,
  );
}

/**
 * Parses a chat template once (cached by source, up to 32 templates) with `@huggingface/jinja`, using the
 * transformers environment settings (`trim_blocks`, `lstrip_blocks`).
 *
 * @throws ChatTemplateError `parse` when the source is not valid Jinja for `@huggingface/jinja`.
 */
export function compileChatTemplate(source: string): CompiledChatTemplate {
  const cached = cache.get(source);
  if (cached !== undefined) return cached;
  let template: Template;
  try {
    template = new Template(replaceGenerationTags(source));
  } catch (error) {
    throw new ChatTemplateError({
      reason: "parse",
      message: `chat template does not parse: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
  const compiled: CompiledChatTemplate = {
    source,
    template,
    contentFormat: detectContentFormat(template.parsed),
  };
  if (cache.size >= MAX_CACHED) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(source, compiled);
  return compiled;
}
