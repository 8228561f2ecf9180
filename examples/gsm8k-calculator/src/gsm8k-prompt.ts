/** The instruction appended to every GSM8K question. */
export const GSM8K_INSTRUCTION =
  "Use the calculator tool for every arithmetic step. When you are done, give the final answer on its own line as '#### <number>'.";

/** The user prompt for one GSM8K question: the question, a blank line, then {@link GSM8K_INSTRUCTION}. */
export function buildGsm8kPrompt(question: string): string {
  return `${question}\n\n${GSM8K_INSTRUCTION}`;
}

/** The question inside a prompt built by {@link buildGsm8kPrompt} (the text itself when the instruction is absent). */
export function questionFromPrompt(prompt: string): string {
  const suffix = `\n\n${GSM8K_INSTRUCTION}`;
  return prompt.endsWith(suffix) ? prompt.slice(0, -suffix.length) : prompt;
}
