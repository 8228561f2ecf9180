import { createServer, type Server } from "node:http";
import {
  createStandinEngineState,
  type StandinEngineState,
  startStandinOutage,
} from "./standin-engine-state";
import type { StandinEngine, StandinEngineOptions } from "./standin-engine-types";
import { createStandinRequestListener } from "./standin-route";

/**
 * Creates an SGLang-compatible **stand-in engine** (not a model): an HTTP server with SGLang's native
 * routes and byte-compatible field names, whose output comes from a pluggable policy. The engine does
 * what SGLang does around the policy's text: tokenises it, appends the stop token, honours
 * `max_new_tokens` / stop strings / stop token ids, reports deterministic logprobs, `cached_tokens` from
 * a prefix cache, `weight_version` and `e2e_latency`, and supports streaming, prefix-match aborts,
 * pause / continue (`abort`, `retract`, `in_place`, each with SGLang's behaviour), exact continuation of
 * aborted requests resubmitted as prompt + partial output (see `ContinuationStore`), a concurrency limit
 * and injected faults.
 *
 * Routes: `/generate`, `/abort_request`, `/health`, `/health_generate`, `/get_model_info` (`/model_info`),
 * `/get_server_info` (`/server_info`), `/pause_generation`, `/continue_generation`,
 * `/update_weights_from_disk` and `/update_weight_version` (label only: they change the reported
 * `weight_version` and the seeded logprobs, nothing is loaded), `/flush_cache`; and, not SGLang's, the
 * test controls `/standin/outage`, `/standin/stall`, `/standin/end_stall` and `/standin/faults` (see the
 * README's fault knobs: outage windows, resets after k tokens, hangs).
 *
 * @example
 * const engine = createStandinEngine({ tokenizer, policy: scriptedPolicy(["Hello!"]) });
 * const url = await engine.listen();
 * // POST `${url}/generate` with {"input_ids": [...]} → {"text","output_ids","meta_info"}
 * await engine.close();
 */
export function createStandinEngine(options: StandinEngineOptions): StandinEngine {
  const state = createStandinEngineState(options);
  const { scheduler, outage, faults, sockets } = state;
  const requestListener = createStandinRequestListener(state);
  let server: Server | undefined;
  let baseUrl: string | undefined;
  return {
    get url() {
      if (!baseUrl) throw new Error("the stand-in engine is not listening; call listen() first");
      return baseUrl;
    },
    listen(port = 0, host = "127.0.0.1") {
      if (server) return Promise.reject(new Error("the stand-in engine is already listening"));
      server = createStandinServer(state, requestListener);
      return listenOn(server, port, host).then((url) => {
        baseUrl = url;
        return url;
      });
    },
    async close() {
      outage.endStall();
      outage.endOutage();
      scheduler.abort({ all: true, message: "Aborted (stand-in engine closing)" });
      const current = server;
      server = undefined;
      baseUrl = undefined;
      if (!current) return;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => current.close(() => resolve()));
    },
    calls: state.calls,
    get weightVersion() {
      return scheduler.weightVersion;
    },
    requestListener,
    injectFault: (rule) => faults.add(rule),
    startOutage: (outageOptions = {}) => startStandinOutage(state, outageOptions),
    endOutage: () => outage.endOutage(),
    get outage() {
      return outage.outage;
    },
    startStall: (stallOptions) => outage.startStall(stallOptions),
    endStall: () => outage.endStall(),
    get stalled() {
      return outage.stalled;
    },
    clearFaults: () => faults.clear(),
    abort: (ridPrefix) => scheduler.abort({ ridPrefix }),
    requests: () => scheduler.snapshot(),
    until: (predicate) => scheduler.until(predicate),
    whenGenerated: ({ rid, tokens }) =>
      scheduler.until((requests) =>
        requests.some(
          (request) => (rid === undefined || request.rid.startsWith(rid)) && request.outputTokens >= tokens,
        ),
      ),
    flushCache: () => {
      scheduler.flushCache({ force: true });
    },
    get continuationsKept() {
      return scheduler.continuationsKept;
    },
  };
}

/**
 * The engine's HTTP server (not listening yet): keep-alive 5 s; its connections are tracked in
 * `state.sockets`, and reset at once while the engine is down (`refuse`: the port is bound, nothing answers).
 */
function createStandinServer(
  state: StandinEngineState,
  requestListener: StandinEngine["requestListener"],
): Server {
  const created = createServer(requestListener);
  created.keepAliveTimeout = 5_000;
  created.on("connection", (socket) => {
    if (state.outage.outage === "refuse") {
      socket.destroy();
      return;
    }
    state.sockets.add(socket);
    socket.on("close", () => state.sockets.delete(socket));
  });
  return created;
}

/** Listens on `port` (0: any free port) and `host`; resolves with the base URL (an IPv6 host in brackets). */
function listenOn(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const address = server.address();
      const actualPort = typeof address === "object" && address ? address.port : port;
      const shownHost = host.includes(":") ? `[${host}]` : host;
      resolve(`http://${shownHost}:${actualPort}`);
    });
  });
}
