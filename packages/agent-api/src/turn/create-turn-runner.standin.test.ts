import { SessionForest } from "@relax/forest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewaySession } from "../session/gateway-session";
import { createTestGateway, type TestGateway } from "../testing/create-test-gateway";

describe("turn runner on the stand-in engine (in process)", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await createTestGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("should send the lineage's exact token ids with the rollout sampling and commit the engine's ids", async () => {
    const session = new GatewaySession({
      id: "turns-1",
      groupId: "g",
      mode: "train",
      forest: new SessionForest({ sessionId: "turns-1", renderer: gateway.renderer, maxContextTokens: 4096 }),
      samplingSeedBase: 1000,
    });
    gateway.registry.add(session);
    session.lease();
    const calls = gateway.standin.calls.length;
    const send = (messages: unknown[]) =>
      gateway.fetch(
        new Request("http://gateway.test/agentic_api/v1/chat/completions", {
          method: "POST",
          headers: { authorization: "Bearer turns-1", "content-type": "application/json" },
          body: JSON.stringify({ model: "m", messages, temperature: 0.2 }),
        }),
      );
    const first = await send([{ role: "user", content: "Hi" }]);
    expect(first.status).toBe(200);
    const second = await send([
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Answer 1." },
      { role: "user", content: "Again" },
    ]);
    expect(second.status).toBe(200);

    const generate = gateway.standin.calls.slice(calls).filter((call) => call.path === "/generate");
    const bodies = generate.map(
      (call) =>
        call.body as {
          input_ids: number[];
          sampling_params: Record<string, unknown>;
          return_logprob?: boolean;
        },
    );
    const decode = (ids: number[]) => gateway.tokenizer.decode(ids, { skipSpecialTokens: false });
    expect(decode(bodies[0]!.input_ids)).toBe("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
    // The second turn continues the committed lineage: first prompt + the engine's own response ids.
    const answer = [16141, 220, 16, 13, 151645];
    expect(bodies[1]!.input_ids.slice(0, bodies[0]!.input_ids.length + answer.length)).toEqual([
      ...bodies[0]!.input_ids,
      ...answer,
    ]);
    expect(decode(bodies[1]!.input_ids.slice(bodies[0]!.input_ids.length + answer.length))).toBe(
      "\n<|im_start|>user\nAgain<|im_end|>\n<|im_start|>assistant\n",
    );
    // The agent's temperature is ignored; the rollout's sampling and the deterministic seed are sent.
    expect(bodies[0]!.sampling_params).toMatchObject({
      temperature: 1,
      top_p: 1,
      top_k: -1,
      max_new_tokens: 64,
      sampling_seed: 1000,
    });
    expect(bodies[1]!.sampling_params).toMatchObject({ sampling_seed: 1001 });
    expect(bodies[0]!.return_logprob).toBe(true);

    const turns = session.forest.turns();
    expect(turns.map((turn) => turn.transition)).toEqual(["append", "append"]);
    const [leaf] = session.forest.exportableLeaves();
    const sample = session.forest.buildSample(leaf!.stateHash);
    expect(sample.tokens).toEqual([...bodies[1]!.input_ids, 16141, 220, 17, 13, 151645]);
    expect(sample.lossMask).toEqual(
      [
        ...new Array(bodies[0]!.input_ids.length).fill(0),
        1,
        1,
        1,
        1,
        1,
        ...new Array(bodies[1]!.input_ids.length - bodies[0]!.input_ids.length - answer.length).fill(0),
        1,
        1,
        1,
        1,
        1,
      ].slice(sample.promptLength),
    );
    expect(sample.rolloutLogProbs).toHaveLength(sample.responseLength);
    gateway.registry.remove("turns-1");
  });

  it("should sample eval sessions with the --eval-* overrides and train sessions with the rollout's", async () => {
    const evalGateway = await createTestGateway({
      turns: { evalSampling: { temperature: 0, topP: 0.5, topK: 5, maxResponseLen: 16 } },
    });
    try {
      for (const mode of ["train", "eval"] as const) {
        const id = `sampling-${mode}`;
        const session = new GatewaySession({
          id,
          groupId: "g",
          mode,
          forest: new SessionForest({
            sessionId: id,
            renderer: evalGateway.renderer,
            maxContextTokens: 4096,
          }),
        });
        evalGateway.registry.add(session);
        session.lease();
        const answer = await evalGateway.fetch(
          new Request("http://gateway.test/agentic_api/v1/chat/completions", {
            method: "POST",
            headers: { authorization: `Bearer ${id}`, "content-type": "application/json" },
            body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "Hi" }] }),
          }),
        );
        expect(answer.status).toBe(200);
      }
      const params = evalGateway.standin.calls
        .filter((call) => call.path === "/generate")
        .map((call) => (call.body as { sampling_params: Record<string, unknown> }).sampling_params);
      expect(
        params.map(({ temperature, top_p, top_k, max_new_tokens }) => [
          temperature,
          top_p,
          top_k,
          max_new_tokens,
        ]),
      ).toEqual([
        [1, 1, -1, 64],
        [0, 0.5, 5, 16],
      ]);
    } finally {
      await evalGateway.close();
    }
  });

  it("should warn once per run when agents send tools and no tool-call parser is set", async () => {
    const session = new GatewaySession({
      id: "turns-tools",
      groupId: "g",
      mode: "train",
      forest: new SessionForest({
        sessionId: "turns-tools",
        renderer: gateway.renderer,
        maxContextTokens: 4096,
      }),
    });
    gateway.registry.add(session);
    session.lease();
    const tools = [{ type: "function", function: { name: "calculator", parameters: { type: "object" } } }];
    const send = (messages: unknown[]) =>
      gateway.fetch(
        new Request("http://gateway.test/agentic_api/v1/chat/completions", {
          method: "POST",
          headers: { authorization: "Bearer turns-tools", "content-type": "application/json" },
          body: JSON.stringify({ model: "m", messages, tools }),
        }),
      );
    expect(gateway.notices).toEqual([]);
    expect((await send([{ role: "user", content: "Hi" }])).status).toBe(200);
    expect((await send([{ role: "user", content: "Hi again" }])).status).toBe(200);
    expect(gateway.notices.map((notice) => notice.code)).toEqual(["tool_call_parser_missing"]);
    expect(gateway.notices[0]!.message).toContain("--agentic-tool-call-parser");
  });
});
