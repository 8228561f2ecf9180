import { BackendUnavailableError } from "@relax/agent-api";
import type { ServerHealth } from "@relax/sglang";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkBackendHealth } from "./check-backend-health";

afterEach(() => {
  vi.useRealTimers();
});

function pendingProbe() {
  let answer!: (servers: ServerHealth[]) => void;
  const probe = () =>
    new Promise<ServerHealth[]>((resolve) => {
      answer = resolve;
    });
  return { probe, answer: (servers: ServerHealth[]) => answer(servers) };
}

describe("checkBackendHealth (start-up check of --sglang-url, with progress)", () => {
  it("should log a line every tick while the check has no answer, then stop and name the failing server", async () => {
    vi.useFakeTimers();
    const { probe, answer } = pendingProbe();
    const lines: [string, Record<string, unknown>][] = [];
    const done = checkBackendHealth({
      probe,
      target: "http://127.0.0.1:30000",
      announce: true,
      log: (message, fields) => lines.push([message, fields]),
    });
    const failed = expect(done).rejects.toThrow(
      "the inference backend is not healthy: http://127.0.0.1:30000 (connect ECONNREFUSED 127.0.0.1:30000); check --sglang-url",
    );
    await vi.advanceTimersByTimeAsync(12_000);
    expect(lines).toEqual([
      ["inference backend: checking http://127.0.0.1:30000 (/health)", {}],
      [
        "inference backend: still waiting for http://127.0.0.1:30000 to answer /health (5 s)",
        { waited_s: 5 },
      ],
      [
        "inference backend: still waiting for http://127.0.0.1:30000 to answer /health (10 s)",
        { waited_s: 10 },
      ],
    ]);
    answer([
      {
        url: "http://127.0.0.1:30000",
        role: "worker",
        ok: false,
        error: "connect ECONNREFUSED 127.0.0.1:30000",
      },
    ]);
    await failed;
    await expect(done).rejects.toBeInstanceOf(BackendUnavailableError);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(lines).toHaveLength(3); // the ticker stopped with the answer
  });

  it("should resolve without a line when every server answers at once, and name HTTP statuses", async () => {
    const lines: string[] = [];
    await checkBackendHealth({
      probe: async () => [{ url: "http://a", role: "worker", ok: true, status: 200 }],
      target: "http://a",
      log: (message) => lines.push(message),
    });
    expect(lines).toEqual([]);
    await expect(
      checkBackendHealth({
        probe: async () => [
          { url: "http://a", role: "worker", ok: true, status: 200 },
          { url: "http://b", role: "worker", ok: false, status: 503 },
        ],
        target: "http://a, http://b",
        log: (message) => lines.push(message),
      }),
    ).rejects.toThrow("the inference backend is not healthy: http://b (HTTP 503); check --sglang-url");
  });
});
