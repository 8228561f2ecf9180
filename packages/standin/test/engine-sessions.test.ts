import { QWEN2_VL_PROCESSOR_DEFAULTS } from "@relax/chat";
import { createSglangClient } from "@relax/sglang";
import { afterEach, describe, expect, it } from "vitest";
import { createStandinEngine } from "../src/index";
import type { StandinEngine } from "../src/standin-engine-types";
import { pngHeader } from "./support/png-header";
import { chatPrompt, IM_END, qwen3Tokenizer } from "./support/qwen3-tokenizer";

const tokenizer = await qwen3Tokenizer();
const engines: StandinEngine[] = [];

afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
});

/** Qwen2-VL's image placeholder (`<|image_pad|>`), between `<|vision_start|>` and `<|vision_end|>`. */
const IMAGE_PAD = 151655;
const VISION_START = 151652;
const VISION_END = 151653;

/**
 * A stand-in whose policy records the full prompt it ran (what the engine "sees") and answers by turn;
 * with `vision`, it serves images like a Qwen2-VL engine (placeholder check, expanded prompt length).
 */
async function recordingEngine(vision = false) {
  const seen: number[][] = [];
  const engine = createStandinEngine({
    tokenizer,
    seed: 5,
    contextLength: 65_536,
    ...(vision ? { vision: { processor: QWEN2_VL_PROCESSOR_DEFAULTS, imagePadId: IMAGE_PAD } } : {}),
    policy: ({ inputIds }) => {
      seen.push([...inputIds]);
      return `Reply ${seen.length}.`;
    },
  });
  engines.push(engine);
  return { url: await engine.listen(), engine, seen };
}

/** Three turns of one conversation: each prompt is the previous prompt + reply + a new user message. */
async function converse(client: ReturnType<typeof createSglangClient>, divergeAt?: number) {
  let prompt = tokenizer.encode(chatPrompt("first question", "You are terse."));
  const outputs: number[][] = [];
  for (let turn = 0; turn < 4; turn++) {
    const result = await client.generate({ inputIds: prompt, routingKey: "session-a", rid: `turn-${turn}` });
    outputs.push(result.outputIds);
    let next = [...prompt, ...result.outputIds];
    // A re-rendered history (e.g. reasoning dropped): the new prompt departs from the engine's copy.
    if (turn === divergeAt) next = [...prompt.slice(0, prompt.length - 3), ...result.outputIds];
    prompt = [...next, ...tokenizer.encode(`\n<|im_start|>user\nquestion ${turn + 2}<|im_end|>\n`)];
  }
  return outputs;
}

/**
 * Six calls of key "vis": two text turns, two turns whose prompt holds an image (the lineage's image goes
 * with every later turn), then a text-only branch off turn 2 (the image dropped) and its next turn.
 */
async function imageConversation(client: ReturnType<typeof createSglangClient>) {
  const image = pngHeader(98, 70);
  const user = (text: string) =>
    tokenizer.encode(`\n<|im_start|>user\n${text}<|im_end|>\n<|im_start|>assistant\n`);
  const prompts: number[][] = [tokenizer.encode(chatPrompt("first question"))];
  const outputs: number[][] = [];
  const call = async (turn: number, inputIds: number[], images: string[] = []) => {
    prompts[turn] = inputIds;
    const result = await client.generate({
      inputIds,
      routingKey: "vis",
      rid: `v-${turn}`,
      ...(images.length > 0 ? { imageData: images } : {}),
    });
    expect(result.finishReason.type).toBe("stop");
    outputs[turn] = result.outputIds;
    return [...inputIds, ...result.outputIds];
  };
  const after0 = await call(0, prompts[0]!);
  const after1 = await call(1, [...after0, ...user("second")]);
  const withImage = [...tokenizer.encode("\n<|im_start|>user\n"), VISION_START, IMAGE_PAD, VISION_END];
  const after2 = await call(2, [...after1, ...withImage, ...user("what is in it?").slice(3)], [image]);
  await call(3, [...after2, ...user("and more?")], [image]);
  const after4 = await call(4, [...after1, ...user("no image here")]);
  await call(5, [...after4, ...user("last")]);
  return { prompts, outputs, image };
}

describe("SGLang engine sessions (open_session / session_params / close_session)", () => {
  it("should run exactly the ids the full-ids fallback sends, while sending only the deltas", async () => {
    const full = await recordingEngine();
    const fullOutputs = await converse(createSglangClient({ baseUrl: full.url }));
    const lean = await recordingEngine();
    const client = createSglangClient({ baseUrl: lean.url, engineSessions: true });
    const leanOutputs = await converse(client, 1);
    const fallbackDiverging = await recordingEngine();
    await converse(createSglangClient({ baseUrl: fallbackDiverging.url }), 1);

    expect(leanOutputs).toEqual(fullOutputs);
    expect(leanOutputs[0]).toEqual([...tokenizer.encode("Reply 1."), IM_END]);
    // The engine ran the same prompts, token for token, as with full ids (divergence included).
    expect(lean.seen).toEqual(fallbackDiverging.seen);
    expect(lean.seen).toHaveLength(4);

    const generates = lean.engine.calls.filter((call) => call.path === "/generate");
    const bodies = generates.map((call) => call.body as Record<string, unknown>);
    const sessionId = (bodies[0]!.session_params as { id: string }).id;
    expect(lean.engine.calls[0]!.path).toBe("/open_session");
    expect(bodies[0]!.session_params).toEqual({ id: sessionId, replace: true });
    expect(bodies[0]!.input_ids).toEqual(lean.seen[0]);
    // Turn 2 appends to turn 1: offset = the whole previous prompt + output.
    const base1 = lean.seen[0]!.length + leanOutputs[0]!.length;
    expect(bodies[1]!.session_params).toEqual({ id: sessionId, rid: "turn-0", offset: base1 });
    expect(bodies[1]!.input_ids).toEqual(lean.seen[1]!.slice(base1));
    // Turn 3 after the divergence: the offset is the common prefix (3 ids before turn 2's prompt end).
    const common = lean.seen[1]!.length - 3;
    expect(bodies[2]!.session_params).toEqual({ id: sessionId, rid: "turn-1", offset: common });
    expect(bodies[2]!.input_ids).toEqual(lean.seen[2]!.slice(common));
    const base3 = lean.seen[2]!.length + leanOutputs[2]!.length;
    expect(bodies[3]!.session_params).toEqual({ id: sessionId, rid: "turn-2", offset: base3 });
    expect((bodies[3]!.input_ids as number[]).length).toBe(lean.seen[3]!.length - base3);

    await client.closeEngineSession("session-a");
    expect(lean.engine.calls.at(-1)).toMatchObject({
      path: "/close_session",
      body: { session_id: sessionId },
    });
  });

  it("should fall back to full ids when the engine lost the session, then open a new one", async () => {
    const { url, engine, seen } = await recordingEngine();
    const client = createSglangClient({ baseUrl: url, engineSessions: true });
    const prompt = tokenizer.encode(chatPrompt("hello"));
    const first = await client.generate({ inputIds: prompt, routingKey: "s", rid: "r-1" });
    const firstSession = (engine.calls.find((c) => c.path === "/generate")!.body as Record<string, unknown>)
      .session_params as { id: string };
    // Behind the client's back (an engine restart): the session is gone.
    await fetch(`${url}/close_session`, {
      method: "POST",
      body: JSON.stringify({ session_id: firstSession.id }),
    });
    const next = [...prompt, ...first.outputIds, ...tokenizer.encode("\n<|im_start|>user\nmore<|im_end|>\n")];
    const second = await client.generate({ inputIds: next, routingKey: "s", rid: "r-2" });
    expect(second.finishReason.type).toBe("stop");
    expect(seen.at(-1)).toEqual(next);
    const generates = engine.calls.filter((call) => call.path === "/generate");
    // r-2 was refused by the engine (aborted before running: unknown session), then resent whole.
    expect(generates.map((call) => (call.body as { input_ids: number[] }).input_ids.length)).toEqual([
      prompt.length,
      next.length - prompt.length - first.outputIds.length,
      next.length,
    ]);
    expect((generates[2]!.body as Record<string, unknown>).session_params).toBeUndefined();
  });

  it("should answer SGLang's open_session / close_session shapes and abort an unknown session", async () => {
    const { url } = await recordingEngine();
    const post = (path: string, body: unknown) =>
      fetch(`${url}${path}`, { method: "POST", body: JSON.stringify(body) });
    const opened = await post("/open_session", { capacity_of_str_len: 1000, session_id: "fixed" });
    expect(opened.status).toBe(200);
    expect(await opened.json()).toBe("fixed");
    const again = await post("/open_session", { capacity_of_str_len: 1000, session_id: "fixed" });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("Failed to open the session");
    const closed = await post("/close_session", { session_id: "fixed" });
    expect(closed.status).toBe(200);
    const orphan = await post("/generate", {
      input_ids: [1, 2, 3],
      session_params: { id: "fixed", rid: null },
    });
    const body = (await orphan.json()) as { output_ids: number[]; meta_info: { finish_reason: unknown } };
    expect(body.output_ids).toEqual([]);
    expect(body.meta_info.finish_reason).toMatchObject({
      type: "abort",
      message: "Invalid request: session id fixed does not exist",
    });
  });
  it("should send image turns whole (no session_params), close the session, and reopen it for a later text-only turn", async () => {
    const full = await recordingEngine(true);
    const fullRun = await imageConversation(createSglangClient({ baseUrl: full.url }));
    const lean = await recordingEngine(true);
    const client = createSglangClient({ baseUrl: lean.url, engineSessions: true });
    const leanRun = await imageConversation(client);

    // The engine ran the same prompts and answered the same ids as with full ids every turn.
    expect(leanRun.outputs).toEqual(fullRun.outputs);
    expect(lean.seen).toEqual(full.seen);
    expect(lean.seen).toEqual(leanRun.prompts);

    const calls = lean.engine.calls;
    const paths = calls.map((call) => call.path);
    expect(paths).toEqual([
      "/open_session",
      "/generate",
      "/generate",
      "/close_session",
      "/generate",
      "/generate",
      "/open_session",
      "/generate",
      "/generate",
    ]);
    const bodies = calls.map((call) => call.body as Record<string, unknown>);
    const first = (bodies[1]!.session_params as { id: string }).id;
    expect(bodies[3]).toEqual({ session_id: first });
    const generates = bodies.filter((_, i) => paths[i] === "/generate");
    const prompts = leanRun.prompts;
    const base = (turn: number) => prompts[turn]!.length + leanRun.outputs[turn]!.length;
    expect(generates[1]!.session_params).toEqual({ id: first, rid: "v-0", offset: base(0) });
    expect(generates[1]!.input_ids).toEqual(prompts[1]!.slice(base(0)));
    // Image turns: full ids and the lineage's image, no session_params.
    for (const turn of [2, 3]) {
      expect(generates[turn]!.session_params).toBeUndefined();
      expect(generates[turn]!.input_ids).toEqual(prompts[turn]);
      expect(generates[turn]!.image_data).toEqual([leanRun.image]);
    }
    // The text-only branch opens a new session and sends its full ids; the next turn is a delta again.
    const second = (generates[4]!.session_params as { id: string }).id;
    expect(second).not.toBe(first);
    expect(generates[4]!.session_params).toEqual({ id: second, replace: true });
    expect(generates[4]!.input_ids).toEqual(prompts[4]);
    expect(generates[5]!.session_params).toEqual({ id: second, rid: "v-4", offset: base(4) });
    expect(generates[5]!.input_ids).toEqual(prompts[5]!.slice(base(4)));
  });
});
