import {
  formatQwen3Assistant,
  lastUserQueryIndex,
  parseQwen3Prompt,
  requestSeedKey,
  type StandinPolicy,
  type StandinPolicyRequest,
  seededFraction,
  toolResponsesAfter,
} from "@relax-examples/kit";
import { CALCULATOR_TOOL_NAME } from "./calculator-tool";
import { formatNumber } from "./format-number";
import { type Gsm8kRow, type Gsm8kSolution, parseGsm8kSolution, readGsm8kRows } from "./gsm8k-dataset";
import { questionFromPrompt } from "./gsm8k-prompt";

/** Options of {@link createGsm8kPolicy}. */
export interface Gsm8kPolicyOptions {
  /**
   * Chance that one session makes at least one wrong calculator step (spread evenly over its steps;
   * for a problem without steps, the chance that the final answer is off by one). @default 0.3
   */
  errorRate?: number;
  /** Problems the policy knows. @default the bundled 300 rows */
  rows?: readonly Gsm8kRow[];
}

const NUMBER = /\d+(?:\.\d+)?|\.\d+/g;

/**
 * Creates the GSM8K **stand-in policy** for the Relax stand-in engine. It is a script, not a model: it
 * looks up the problem in the last user query of the Qwen3-rendered prompt, counts the `<tool_response>`
 * blocks already there, and emits the next reference calculator step (the answer's `<<expr=value>>`
 * annotations) as a Qwen3 tool call, then the final answer `… #### N`. It reads the calculator results it
 * was given: a wrong result changes later expressions that used that value and the final answer.
 *
 * With seeded chance (`errorRate` per session; keyed on the request's `rid`, sampling seed and step, so the
 * samples of a Group differ) a step is wrong (its first number is off by one), so rewards vary within a
 * Group. An unknown problem gets `#### 0`.
 */
export function createGsm8kPolicy({ errorRate = 0.3, rows }: Gsm8kPolicyOptions = {}): StandinPolicy {
  let byQuestion: Map<string, Gsm8kSolution> | undefined;
  const solutions = () => {
    byQuestion ??= new Map(
      (rows ?? readGsm8kRows()).map((row) => [row.question.trim(), parseGsm8kSolution(row.answer)]),
    );
    return byQuestion;
  };
  return (request: StandinPolicyRequest) => {
    const prompt = parseQwen3Prompt(request.promptText);
    const thinkOpen = !(prompt.generationPrompt ?? "").includes("</think>");
    const say = (reasoning: string, rest: Parameters<typeof formatQwen3Assistant>[0]) => ({
      text: formatQwen3Assistant({ ...rest, ...(thinkOpen ? { reasoning } : {}) }),
    });
    const queryIndex = lastUserQueryIndex(prompt);
    const query = queryIndex < 0 ? "" : prompt.turns[queryIndex]!.content;
    const question = questionFromPrompt(query).trim();
    const table = solutions();
    const solution =
      table.get(question) ?? [...table.entries()].find(([known]) => query.includes(known))?.[1];
    if (!solution)
      return say("I do not recognise this problem.", { content: "I cannot solve this problem.\n#### 0" });

    const { steps, finalAnswer } = solution;
    const observed = toolResponsesAfter(prompt, queryIndex).map((text) => Number(text.trim()));
    const done = observed.length;
    const stepErrorChance = steps.length === 0 ? errorRate : 1 - (1 - errorRate) ** (1 / steps.length);
    const slips = (label: string) =>
      seededFraction(requestSeedKey(request, `gsm8k|${question}|${label}`)) < stepErrorChance;

    if (done < steps.length) {
      let expression = carryObservedValues(steps[done]!.expression, steps.slice(0, done), observed);
      if (slips(`step-${done}`)) expression = perturb(expression);
      return say(`Step ${done + 1} of ${steps.length}: I need ${expression}. I will use the calculator.`, {
        toolCalls: [{ name: CALCULATOR_TOOL_NAME, arguments: { expression } }],
      });
    }

    let final = Number(finalAnswer);
    if (steps.length === 0) {
      if (slips("final")) final += 1;
    } else {
      const last = steps.at(-1)!;
      const observedLast = observed[steps.length - 1]!;
      if (!sameValue(observedLast, last.value)) final += observedLast - Number(last.value);
    }
    const answer = formatNumber(final);
    return say(`The calculator results give ${answer}.`, {
      content: `The answer is ${answer}.\n#### ${answer}`,
    });
  };
}

/**
 * Replaces numbers in a later reference expression that were results of earlier steps with the results
 * the calculator actually returned, so one wrong step carries through the rest of the solution.
 */
function carryObservedValues(
  expression: string,
  earlier: readonly Gsm8kSolution["steps"][number][],
  observed: readonly number[],
): string {
  return expression.replace(NUMBER, (token) => {
    for (let j = earlier.length - 1; j >= 0; j--) {
      const reference = earlier[j]!.value;
      const actual = observed[j]!;
      if (Number(reference) === Number(token) && !sameValue(actual, reference)) return formatNumber(actual);
    }
    return token;
  });
}

/**
 * Whether a calculator result matches an annotated reference value, allowing for the annotation's rounding
 * (`10/3` = `3.33`). A non-numeric result or reference counts as matching: there is nothing to carry.
 */
function sameValue(observed: number, reference: string): boolean {
  const expected = Number(reference);
  if (!Number.isFinite(observed) || !Number.isFinite(expected)) return true;
  const decimals = reference.includes(".") ? reference.length - reference.indexOf(".") - 1 : 0;
  return Math.abs(observed - expected) <= 0.5 * 10 ** -decimals + 1e-9;
}

/** The stand-in's slip: the first number of the expression is off by one. */
function perturb(expression: string): string {
  let done = false;
  return expression.replace(NUMBER, (token) => {
    if (done) return token;
    done = true;
    return formatNumber(Number(token) + 1);
  });
}

/** The GSM8K stand-in policy with default options (30 % of sessions make a wrong step). */
export const gsm8kPolicy: StandinPolicy = createGsm8kPolicy();
