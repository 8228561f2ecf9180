import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BwrapBackend, LocalProcessBackend } from "@relax/launcher";
import { describe, expect, it } from "vitest";
import {
  createAgentBackend,
  hiddenByPrivateTmp,
  resolveAgentNetwork,
  resolveUidRange,
} from "./create-agent-backend";

const base = {
  agentEnvInherit: "default",
  agentSandbox: "local" as const,
  agentLogMaxBytes: 1024,
  agentEnv: [] as string[],
};
const capture = () => {
  const warnings: Array<{ fields: unknown; message: string | undefined }> = [];
  const infos: unknown[] = [];
  const logger = {
    warn: (fields: unknown, message?: string) => warnings.push({ fields, message }),
    info: (fields: unknown) => infos.push(fields),
  };
  return { warnings, infos, logger: logger as never };
};
const env = { PATH: "/usr/bin", HOME: "/root", HF_TOKEN: "hf_secret_value", OPENAI_API_KEY: "sk-value" };

describe("createAgentBackend", () => {
  it("should use the default uid range as root, no pool otherwise, and warn about nothing with the safe set", async () => {
    const { warnings, logger } = capture();
    const ioRoot = mkdtempSync(join(tmpdir(), "relax-agent-backend-"));
    const asRoot = await createAgentBackend(base, { agentCwd: "/", logger, env, uid: 0, ioRoot });
    expect(asRoot.uidRange).toEqual({ start: 61000, end: 61999 });
    expect(asRoot.backend).toBeInstanceOf(LocalProcessBackend);
    expect(asRoot.secretLookingNames).toEqual([]);
    expect(asRoot.isolation).toBe(
      "uid pool 61000-61999 (host-wide leases), local processes (network: own gateway shard only)",
    );
    expect(warnings).toEqual([]);
    const asUser = await createAgentBackend(base, { agentCwd: "/", logger, env, uid: 1000, ioRoot });
    expect(asUser.uidRange).toBeNull();
    expect(asUser.isolated).toBe(false);
    expect(asUser.isolation).toBe(
      "NONE: agents run as the gateway's uid 1000, unsandboxed (network: host (engine and local services reachable))",
    );
    expect(warnings).toEqual([
      {
        fields:
          "agents are NOT isolated: they run as the gateway's uid 1000 without a sandbox, so each can read the others' credentials and the gateway's environment and memory; run as root (uid pool) or install bubblewrap (--agent-sandbox bwrap), see docs/security.md",
        message: undefined,
      },
    ]);
  });

  it("should pick bubblewrap without root under --agent-sandbox auto, the uid pool as root", async () => {
    const { logger } = capture();
    const auto = { ...base, agentSandbox: "auto" as const };
    const asUser = await createAgentBackend(auto, { agentCwd: "/", logger, env, uid: 1000 });
    expect(asUser.backend).toBeInstanceOf(BwrapBackend);
    expect(asUser.isolation).toBe(
      "bubblewrap (pid/user/ipc namespaces, read-only root, private /tmp; network: own gateway shard only), agents as uid 1000",
    );
    const asRoot = await createAgentBackend(auto, { agentCwd: "/", logger, env, uid: 0 });
    expect(asRoot.backend).not.toBeInstanceOf(BwrapBackend);
    expect(asRoot.uidRange).toEqual({ start: 61000, end: 61999 });
  });

  it("should refuse, before any Group, an agent command whose files the agent uid cannot reach", async () => {
    const { logger } = capture();
    const closed = mkdtempSync(join(tmpdir(), "relax-closed-")); // 0700, root's
    writeFileSync(join(closed, "agent.mjs"), "");
    const error = await createAgentBackend(
      { ...base, agentCommand: `node ${closed}/agent.mjs` },
      { agentCwd: "/", logger, env, uid: 0 },
    ).catch((caught: Error) => caught);
    expect(String((error as Error).message).replace(/uid 6\d{4},/, "uid N,")).toContain(
      `agents (uid N, local backend) cannot reach ${closed}/agent.mjs, which the agent command needs: ${closed} (mode 0700) cannot be entered by other users; fix: chmod o+x ${closed}`,
    );
  });

  it("should warn with the names (never the values) of secret-looking variables agents would get", async () => {
    const { warnings, logger } = capture();
    const setup = await createAgentBackend(
      { ...base, agentEnvInherit: "all", agentEnv: ["WANDB_API_KEY=abc"] },
      { agentCwd: "/", logger, env, uid: 1000 },
    );
    expect(setup.secretLookingNames).toEqual(["HF_TOKEN", "OPENAI_API_KEY", "WANDB_API_KEY"]);
    // (after the "agents are NOT isolated" warning: uid 1000, local processes)
    expect(warnings.slice(1)).toEqual([
      {
        fields: { variables: ["HF_TOKEN", "OPENAI_API_KEY", "WANDB_API_KEY"] },
        message:
          "agents will receive secret-looking variables: HF_TOKEN, OPENAI_API_KEY, WANDB_API_KEY (see --agent-env-inherit)",
      },
    ]);
    expect(JSON.stringify(warnings)).not.toContain("hf_secret_value");
  });

  it("should reject bad options as configuration errors naming the flag", async () => {
    const { logger } = capture();
    const options = { agentCwd: "/", logger, env };
    await expect(
      createAgentBackend({ ...base, agentEnvInherit: "PATH,9X" }, { ...options, uid: 0 }),
    ).rejects.toThrow('--agent-env-inherit[1]: expected a variable name or PREFIX*, got "9X"');
    await expect(
      createAgentBackend({ ...base, agentUidRange: "5-1" }, { ...options, uid: 0 }),
    ).rejects.toThrow(
      '--agent-uid-range: expected START-END with 1000 <= START <= END < 2147483647, got "5-1"',
    );
    await expect(
      createAgentBackend({ ...base, agentUidRange: "61000-61009" }, { ...options, uid: 1000 }),
    ).rejects.toThrow(
      "--agent-uid-range needs the gateway to run as root (it runs as uid 1000); use --agent-uid-range none",
    );
    await expect(
      createAgentBackend({ ...base, agentNetwork: "none", agentUidRange: "none" }, { ...options, uid: 0 }),
    ).rejects.toThrow("--agent-network none needs the uid pool (run as root) or --agent-sandbox bwrap");
    await expect(
      createAgentBackend({ ...base, agentAllow: ["localhost"] }, { ...options, uid: 0 }),
    ).rejects.toThrow('--agent-allow[0]: expected HOST:PORT, got "localhost"');
    await expect(
      createAgentBackend(
        { ...base, agentNetwork: "host", agentAllow: ["127.0.0.1:8080"] },
        { ...options, uid: 0 },
      ),
    ).rejects.toThrow("--agent-allow applies only to --agent-network gateway-only");
    const none = await createAgentBackend({ ...base, agentUidRange: "none" }, { ...options, uid: 0 });
    expect(none.uidRange).toBeNull();
    // Fewer uids than agents that can run at once: refused at start, not at the 7th launch.
    await expect(
      createAgentBackend(
        { ...base, agentUidRange: "61000-61005" },
        { ...options, uid: 0, requiredSlots: 32 },
      ),
    ).rejects.toThrow(
      "--agent-uid-range 61000-61005 holds 6 uids, fewer than the 32 agents that can run at once (one uid each); widen the range or lower --agentic-concurrency / --n-samples-per-prompt",
    );
  });

  it("should restrict the network by default where it can, and WARN on --agent-network host", async () => {
    const { logger, warnings } = capture();
    const restricted = await createAgentBackend(
      { ...base, agentAllow: ["127.0.0.1:8080"] },
      { agentCwd: "/", logger, env, uid: 0 },
    );
    expect(restricted.backend.network).toBe("gateway-only");
    expect(restricted.backend.allow).toEqual([{ host: "127.0.0.1", port: 8080 }]);
    expect(warnings).toEqual([]);
    await createAgentBackend({ ...base, agentNetwork: "host" }, { agentCwd: "/", logger, env, uid: 0 });
    expect(warnings.map((warning) => warning.fields)).toEqual([
      "--agent-network host: agents can reach the engine (unauthenticated: /update_weight_version, /abort_request, /generate), the controller, the other shards and every local service; the default gateway-only reaches only their own gateway shard",
    ]);
  });

  it("should build the bubblewrap backend with its network", async () => {
    const { logger } = capture();
    const setup = await createAgentBackend(
      { ...base, agentSandbox: "bwrap", agentNetwork: "none" },
      { agentCwd: "/", logger, env, uid: 1000 },
    );
    expect(setup.backend).toBeInstanceOf(BwrapBackend);
    expect((setup.backend as BwrapBackend).network).toBe("none");
  });

  it("should name the /tmp paths of an agent command that bubblewrap's private /tmp would hide", () => {
    expect(hiddenByPrivateTmp("bash /tmp/sec/a.sh --out /tmp/sec/o", "/work", "/srv/relax")).toEqual([
      "/tmp/sec/a.sh",
      "/tmp/sec/o",
    ]);
    // Under the agent's cwd or the gateway's working directory: bound into the sandbox, visible.
    expect(hiddenByPrivateTmp("node '/tmp/ci/examples/a.js'", "/work", "/tmp/ci")).toEqual([]);
    expect(hiddenByPrivateTmp("node /tmp/agent/run.js", "/tmp/agent", "/srv")).toEqual([]);
    expect(hiddenByPrivateTmp("node /tmpfoo/x.js /srv/a.js", "/work", "/srv")).toEqual([]);
  });
});

describe("resolveUidRange", () => {
  it("should default to the uid pool only as root, read `none`, and refuse a range without root or too small", () => {
    expect(resolveUidRange(undefined, 1000, undefined)).toBeNull();
    expect(resolveUidRange(undefined, 0, undefined)).not.toBeNull();
    expect(resolveUidRange(" none ", 0, undefined)).toBeNull();
    expect(resolveUidRange("61000-61009", 0, 10)).toEqual({ start: 61000, end: 61009 });
    expect(() => resolveUidRange("61000-61009", 1000, undefined)).toThrow(/needs the gateway to run as root/);
    expect(() => resolveUidRange("61000-61009", 0, 11)).toThrow(/holds 10 uids, fewer than the 11 agents/);
  });
});

describe("resolveAgentNetwork", () => {
  const warnings: unknown[] = [];
  const logger = { warn: (...args: unknown[]) => void warnings.push(args) };
  it("should default to gateway-only where the backend can restrict it, else host", () => {
    expect(resolveAgentNetwork({ agentNetwork: undefined }, { canRestrict: true, logger })).toEqual({
      network: "gateway-only",
      allow: [],
    });
    expect(resolveAgentNetwork({ agentNetwork: undefined }, { canRestrict: false, logger })).toEqual({
      network: "host",
      allow: [],
    });
    expect(warnings).toEqual([]);
  });
  it("should refuse --agent-allow off gateway-only and a restricted network it cannot do, and warn about host", () => {
    expect(() =>
      resolveAgentNetwork(
        { agentNetwork: "host", agentAllow: ["127.0.0.1:9000"] },
        { canRestrict: true, logger },
      ),
    ).toThrow(/--agent-allow applies only to --agent-network gateway-only/);
    expect(() => resolveAgentNetwork({ agentNetwork: "none" }, { canRestrict: false, logger })).toThrow(
      /--agent-network none needs the uid pool/,
    );
    expect(resolveAgentNetwork({ agentNetwork: "host" }, { canRestrict: true, logger }).network).toBe("host");
    expect(String((warnings.at(-1) as unknown[])[0])).toMatch(
      /^--agent-network host: agents can reach the engine/,
    );
  });
});
