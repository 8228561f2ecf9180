import type { TextTokenizer } from "@relax/chat";
import type { StandinPolicy, StandinPolicyOutput, StandinPolicyRequest } from "./policies/standin-policy";
import type { StandinJob } from "./standin-scheduler";

/**
 * Asks the policy for one job's output and returns it as token ids (text is tokenised without special
 * tokens added). Rejects when the job is aborted first, when the policy throws, or when its output is
 * not a string, `{ text }` or `{ tokenIds }` with ids inside the vocabulary.
 */
export async function callStandinPolicy({
  job,
  policy,
  tokenizer,
  requestIndex,
}: {
  job: StandinJob;
  policy: StandinPolicy;
  tokenizer: TextTokenizer;
  requestIndex: number;
}): Promise<number[]> {
  let promptText: string | undefined;
  const request: StandinPolicyRequest = {
    rid: job.rid,
    inputIds: job.inputIds,
    get promptText() {
      promptText ??= tokenizer.decode(job.inputIds, { skipSpecialTokens: false });
      return promptText;
    },
    sampling: job.sampling,
    tokenizer,
    requestIndex,
    headers: job.headers,
    signal: job.controller.signal,
  };
  const signal = job.controller.signal;
  const output = await Promise.race([
    Promise.resolve().then(() => policy(request)),
    new Promise<never>((_, reject) =>
      signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }),
    ),
  ]);
  return toTokenIds(output, tokenizer);
}

function toTokenIds(output: StandinPolicyOutput, tokenizer: TextTokenizer): number[] {
  if (typeof output === "string") return tokenizer.encode(output);
  if (output && typeof output === "object" && "text" in output && typeof output.text === "string") {
    return tokenizer.encode(output.text);
  }
  if (output && typeof output === "object" && "tokenIds" in output && Array.isArray(output.tokenIds)) {
    const ids = [...output.tokenIds];
    ids.forEach((id, index) => {
      if (!Number.isInteger(id) || id < 0 || id >= tokenizer.vocabSize) {
        throw new Error(`tokenIds[${index}] = ${JSON.stringify(id)} is not a token id of the tokenizer`);
      }
    });
    return ids;
  }
  throw new Error("the policy must return a string, { text } or { tokenIds }");
}
