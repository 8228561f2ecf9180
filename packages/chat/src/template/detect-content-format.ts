/**
 * How a chat template reads `message.content`:
 * - `string`: as text only (Qwen3, Llama 3, DeepSeek V3): text-only part lists must be joined first;
 * - `openai`: it loops over content parts (vision templates such as Qwen2-VL), so parts are handed over.
 */
export type TemplateContentFormat = "string" | "openai";

interface AstNode {
  type: string;
  [key: string]: unknown;
}

function isNode(value: unknown): value is AstNode {
  return (
    value !== null && typeof value === "object" && typeof (value as { type?: unknown }).type === "string"
  );
}

/** The expression a loop iterates over, with filters (`|selectattr`), tests and slices peeled off. */
function iterableRoot(node: unknown): AstNode | undefined {
  let current = node;
  while (isNode(current)) {
    if (current.type === "FilterExpression") current = current.operand;
    else if (current.type === "SelectExpression") current = current.lhs;
    else return current;
  }
  return undefined;
}

function readsContent(node: AstNode | undefined): boolean {
  if (node === undefined) return false;
  if (node.type === "Identifier") return node.value === "content";
  if (node.type === "MemberExpression" && isNode(node.property)) {
    const property = node.property;
    return (
      (property.type === "Identifier" || property.type === "StringLiteral") && property.value === "content"
    );
  }
  return false;
}

/**
 * Detects the content format from the parsed template (a `@huggingface/jinja` `Program`): `openai` when
 * some `{% for … in <x>.content %}` (or `in content`) loop exists, else `string`. This is the rule SGLang
 * and vLLM apply (`detect_jinja_template_content_format`), done on the AST rather than by regex.
 */
export function detectContentFormat(program: unknown): TemplateContentFormat {
  const stack: unknown[] = [program];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      stack.push(...value);
      continue;
    }
    if (!isNode(value)) continue;
    if (value.type === "For" && readsContent(iterableRoot(value.iterable))) return "openai";
    for (const child of Object.values(value)) {
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
  return "string";
}
