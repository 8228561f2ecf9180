import {
  AgentConfigError,
  BwrapBackend,
  DEFAULT_AGENT_UID_RANGE,
  findSecretLookingNames,
  LocalProcessBackend,
  type LocalProcessBackendOptions,
  parseAgentEnv,
  parseAgentEnvInherit,
  parseAllowedService,
  parseUidRange,
  preflightAgentCommand,
  selectInheritedEnv,
  UidPool,
} from "@relax/launcher";
import { ConfigError } from "@relax/rollout";
import type { Logger } from "pino";
import type { RolloutConfig } from "../config/rollout-config";
import { agentHiddenPaths, type RunFilesConfig } from "./agent-hidden-paths";

/** The agent backend of a run, with what start-up decided (for the banner and tests). */
export interface AgentBackendSetup {
  backend: LocalProcessBackend;
  /** The uid range in use, or `null` (agents run as the gateway's uid). */
  uidRange: { start: number; end: number } | null;
  /** Secret-looking variable names agents will receive (names only). */
  secretLookingNames: string[];
  /** Session roots of earlier, killed runs that were removed. */
  swept: string[];
  /** Which isolation is in force, in words (the banner's `isolation` line). */
  isolation: string;
  /** `false` when agents run unisolated (the gateway's uid, no sandbox): a WARN was logged. */
  isolated: boolean;
}

/**
 * Builds the `SandboxBackend` agents run in from `--agent-sandbox`, `--agent-uid-range`,
 * `--agent-env-inherit`, `--agent-network` and `--agent-log-max-bytes` (docs/security.md), sweeps the
 * session folders left by killed runs, and warns (names only, never values) about secret-looking
 * variables agents would receive.
 *
 * @param options.env the gateway's environment. @default process.env
 * @param options.uid the gateway's uid (root gets a uid pool by default). @default process.getuid()
 * @throws {ConfigError} a malformed option, a uid range without root, or bubblewrap missing.
 */
export async function createAgentBackend(
  config: Pick<
    RolloutConfig,
    "agentEnvInherit" | "agentUidRange" | "agentSandbox" | "agentNetwork" | "agentLogMaxBytes" | "agentEnv"
  > &
    Partial<Pick<RolloutConfig, "agentAllow">> &
    RunFilesConfig & { agentCommand?: string },
  options: {
    agentCwd: string;
    logger: Pick<Logger, "warn" | "info">;
    env?: Readonly<Record<string, string | undefined>>;
    uid?: number;
    ioRoot?: string;
    /**
     * Agent processes that can run at once (the capacity plan's required slots): a uid range with fewer
     * uids is refused at start instead of failing launches later.
     */
    requiredSlots?: number;
  },
): Promise<AgentBackendSetup> {
  const env = options.env ?? process.env;
  const uid = options.uid ?? process.getuid?.() ?? -1;
  const { logger } = options;
  try {
    const envInherit = parseAgentEnvInherit(config.agentEnvInherit, { path: "--agent-env-inherit" });
    const uidRange = resolveUidRange(config.agentUidRange, uid, options.requiredSlots);
    const backendOptions: LocalProcessBackendOptions = {
      baseEnv: env,
      envInherit,
      logMaxBytes: config.agentLogMaxBytes,
      hiddenPaths: agentHiddenPaths(config, { cwd: process.cwd(), agentCwd: options.agentCwd }),
      onWarning: (message) => logger.warn(message),
      ...(uidRange !== null ? { uidPool: createUidPool(uidRange, logger) } : {}),
      ...(options.ioRoot !== undefined ? { ioRoot: options.ioRoot } : {}),
    };
    // `auto`: as root the uid pool on local processes; otherwise bubblewrap when it runs here.
    const sandbox =
      config.agentSandbox !== "auto" ? config.agentSandbox : uid === 0 || !bwrapRuns(env) ? "local" : "bwrap";
    const { network, allow } = resolveAgentNetwork(config, {
      canRestrict: sandbox === "bwrap" || uidRange !== null,
      logger,
    });
    backendOptions.network = network;
    backendOptions.allow = allow;
    const backend =
      sandbox === "bwrap"
        ? createBwrapBackend(backendOptions, config.agentCommand ?? "", options.agentCwd, logger)
        : new LocalProcessBackend(backendOptions);
    const isolated = uidRange !== null || sandbox === "bwrap";
    const isolation = describeIsolation({ sandbox, uidRange, uid, network, allow: allow.length });
    if (!isolated) {
      logger.warn(
        `agents are NOT isolated: they run as the gateway's uid ${uid} without a sandbox, so each can read the others' credentials and the gateway's environment and memory; run as root (uid pool) or install bubblewrap (--agent-sandbox bwrap), see docs/security.md`,
      );
    }
    // Pre-flight: the agent uid must reach the command's files and --agent-cwd (one line, before any Group).
    if (isolated && config.agentCommand !== undefined && config.agentCommand.trim() !== "") {
      const problem = await preflightAgentCommand({
        backend,
        command: config.agentCommand,
        cwd: options.agentCwd,
      });
      if (problem !== null) throw new ConfigError({ message: problem });
    }
    const secretLookingNames = warnSecretLookingNames(
      { ...selectInheritedEnv(env, envInherit), ...parseAgentEnv(config.agentEnv, { path: "--agent-env" }) },
      logger,
    );
    const swept = await backend.sweepStale();
    if (swept.length > 0) logger.info({ folders: swept.length }, "removed session folders of earlier runs");
    return { backend, uidRange, secretLookingNames, swept, isolation, isolated };
  } catch (error) {
    if (AgentConfigError.isInstance(error)) throw new ConfigError({ message: error.message, cause: error });
    throw error;
  }
}

/**
 * The uid range agents run in: `--agent-uid-range` (`none`: none), by default {@link DEFAULT_AGENT_UID_RANGE}
 * as root and none otherwise.
 * @throws {ConfigError} a range given without root, or one with fewer uids than `requiredSlots` agents.
 * @throws {AgentConfigError} a malformed range.
 */
export function resolveUidRange(
  text: string | undefined,
  uid: number,
  requiredSlots: number | undefined,
): { start: number; end: number } | null {
  let uidRange: { start: number; end: number } | null = null;
  if (text === undefined) {
    if (uid === 0) uidRange = { ...DEFAULT_AGENT_UID_RANGE };
  } else if (text.trim() !== "none") {
    uidRange = parseUidRange(text, { path: "--agent-uid-range" });
    if (uid !== 0) {
      throw new ConfigError({
        message: `--agent-uid-range needs the gateway to run as root (it runs as uid ${uid}); use --agent-uid-range none`,
      });
    }
  }
  if (uidRange !== null && requiredSlots !== undefined) {
    const size = uidRange.end - uidRange.start + 1;
    if (size < requiredSlots) {
      throw new ConfigError({
        message: `--agent-uid-range ${uidRange.start}-${uidRange.end} holds ${size} uids, fewer than the ${requiredSlots} agents that can run at once (one uid each); widen the range or lower --agentic-concurrency / --n-samples-per-prompt`,
      });
    }
  }
  return uidRange;
}

/** The host-wide uid pool over `range`; a lease reclaimed from a dead run is a WARN line. */
function createUidPool(range: { start: number; end: number }, logger: Pick<Logger, "warn">): UidPool {
  return new UidPool({
    ...range,
    onStaleLease: ({ uid, previousHolder, killed }) =>
      logger.warn(
        { uid, previousHolder, killed },
        `reclaimed the lease of uid ${uid} from a run that died (${previousHolder}); killed ${killed} leftover process(es)`,
      ),
  });
}

/**
 * The agents' network (`--agent-network`, by default `gateway-only` where the backend can restrict it —
 * `canRestrict`: bubblewrap or a uid pool — else `host`) and the `--agent-allow` services. `host` on a
 * backend that could restrict it is a WARN line.
 * @throws {ConfigError} `--agent-allow` without `gateway-only`, or a restricted network the backend cannot do.
 * @throws {AgentConfigError} a malformed `--agent-allow` entry.
 */
export function resolveAgentNetwork(
  config: Pick<RolloutConfig, "agentNetwork"> & Partial<Pick<RolloutConfig, "agentAllow">>,
  { canRestrict, logger }: { canRestrict: boolean; logger: Pick<Logger, "warn"> },
): {
  network: NonNullable<LocalProcessBackendOptions["network"]>;
  allow: NonNullable<LocalProcessBackendOptions["allow"]>;
} {
  // Network: only the agent's own gateway shard (and --agent-allow) wherever the backend can do it.
  const network = config.agentNetwork ?? (canRestrict ? "gateway-only" : "host");
  const allow = (config.agentAllow ?? []).map((text, index) =>
    parseAllowedService(text, { path: `--agent-allow[${index}]` }),
  );
  if (allow.length > 0 && network !== "gateway-only") {
    throw new ConfigError({ message: "--agent-allow applies only to --agent-network gateway-only" });
  }
  if (network !== "host" && !canRestrict) {
    throw new ConfigError({
      message: `--agent-network ${network} needs the uid pool (run as root) or --agent-sandbox bwrap`,
    });
  }
  if (network === "host" && canRestrict) {
    logger.warn(
      "--agent-network host: agents can reach the engine (unauthenticated: /update_weight_version, /abort_request, /generate), the controller, the other shards and every local service; the default gateway-only reaches only their own gateway shard",
    );
  }
  return { network, allow };
}

/**
 * The bubblewrap backend, checked to run here; `/tmp` paths of the agent command that its private `/tmp`
 * hides are a WARN line.
 * @throws {AgentConfigError} bubblewrap missing or not working.
 */
function createBwrapBackend(
  backendOptions: LocalProcessBackendOptions,
  agentCommand: string,
  agentCwd: string,
  logger: Pick<Logger, "warn">,
): BwrapBackend {
  const bwrap = new BwrapBackend(backendOptions);
  bwrap.checkAvailable();
  const hidden = hiddenByPrivateTmp(agentCommand, agentCwd);
  if (hidden.length > 0) {
    logger.warn(
      { paths: hidden },
      `--agent-sandbox bwrap gives agents a private /tmp: ${hidden.join(", ")} (in --agent-command) will not exist inside the sandbox; move it out of /tmp, under --agent-cwd, or under the gateway's working directory`,
    );
  }
  return bwrap;
}

/** The secret-looking names among the variables agents receive (`passed`), warned about (names only). */
function warnSecretLookingNames(
  passed: Readonly<Record<string, string | undefined>>,
  logger: Pick<Logger, "warn">,
): string[] {
  const secretLookingNames = findSecretLookingNames(passed);
  if (secretLookingNames.length > 0) {
    logger.warn(
      { variables: secretLookingNames },
      `agents will receive secret-looking variables: ${secretLookingNames.join(", ")} (see --agent-env-inherit)`,
    );
  }
  return secretLookingNames;
}

/** Whether bubblewrap runs here (for `--agent-sandbox auto` without root). */
function bwrapRuns(env: Readonly<Record<string, string | undefined>>): boolean {
  try {
    new BwrapBackend({ baseEnv: env }).checkAvailable();
    return true;
  } catch {
    return false;
  }
}

/** The banner's words for the isolation in force, e.g. `uid pool 61000-61999 (host-wide leases), local processes`. */
export function describeIsolation({
  sandbox,
  uidRange,
  uid,
  network,
  allow = 0,
}: {
  sandbox: "local" | "bwrap";
  uidRange: { start: number; end: number } | null;
  uid: number;
  network: string;
  allow?: number;
}): string {
  const pool = uidRange !== null ? `uid pool ${uidRange.start}-${uidRange.end} (host-wide leases)` : null;
  const net =
    network === "gateway-only"
      ? `network: own gateway shard only${allow > 0 ? ` + ${allow} allowed service(s)` : ""}`
      : network === "none"
        ? "network: none"
        : "network: host (engine and local services reachable)";
  if (sandbox === "bwrap") {
    return `bubblewrap (pid/user/ipc namespaces, read-only root, private /tmp; ${net})${pool !== null ? `, ${pool}` : `, agents as uid ${uid}`}`;
  }
  return pool !== null
    ? `${pool}, local processes (${net})`
    : `NONE: agents run as the gateway's uid ${uid}, unsandboxed (${net})`;
}

/**
 * Absolute `/tmp/…` paths in an agent command that bubblewrap's private `/tmp` hides: those not under the
 * agent's cwd or the gateway's working directory (both bound into the sandbox). A heuristic over
 * whitespace-separated words (quotes stripped), for a start-up warning only.
 */
export function hiddenByPrivateTmp(command: string, agentCwd: string, gatewayCwd = process.cwd()): string[] {
  const visible = [agentCwd, gatewayCwd].map((path) => path.replace(/\/+$/, ""));
  return command
    .split(/\s+/)
    .map((word) => word.replace(/^['"]|['"]$/g, ""))
    .filter(
      (word) =>
        word.startsWith("/tmp/") && !visible.some((root) => word === root || word.startsWith(`${root}/`)),
    );
}
