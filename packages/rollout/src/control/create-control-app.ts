import { readBearerToken, tokensEqual } from "@relax/agent-api";
import { STATUS_TABLE } from "@relax/protocol";
import { Hono, type MiddlewareHandler } from "hono";
import type { BlankEnv, BlankSchema } from "hono/types";
import type { z } from "zod";
import { ControlError } from "./control-error";
import {
  type ControlErrorBody,
  type ControlRecord,
  evalsRequestSchema,
  pauseRequestSchema,
  resumeRequestSchema,
  stepRequestSchema,
  weightsRequestSchema,
} from "./control-schemas";
import type { ControlRecordSink, RolloutService } from "./rollout-service";

/** Options of {@link createControlApp}. */
export interface ControlAppOptions {
  /** The control token (`--control-token`, `RELAX_CONTROL_TOKEN`, or generated). Must not be empty. */
  token: string;
  service: RolloutService;
}

/** Path prefix of the control API. */
export const CONTROL_BASE_PATH = "/rollout/v1";

const NDJSON_HEADERS = {
  "content-type": "application/x-ndjson",
  "cache-control": "no-store",
  "x-accel-buffering": "no",
};

/**
 * The trainer control API of `relax serve` as a Hono app whose routes live under `/rollout/v1` (mount it
 * with `root.route("/", createControlApp(...))`). Every route needs `Authorization: Bearer <token>`,
 * compared in constant time (401 `unauthorized`). Bodies are validated with the zod schemas of
 * `control-schemas.ts` (400 `invalid_body` naming the field `path`); a {@link ControlError} from the
 * service answers its own code and status; any other error is 500 `internal_error`.
 *
 * `POST /steps` and `POST /evals` stream `application/x-ndjson`, one line per record, written as the
 * service reports it. A refusal thrown before the first record is a plain error answer (e.g. 409
 * `step_out_of_order`); a failure after it is the last line, `{"type":"error",...}`. When the client
 * goes away the service is not interrupted: the step runs to its end, its remaining records dropped.
 *
 * @see docs/trainer-api.md
 * @throws RangeError when `token` is empty.
 */
export function createControlApp(options: ControlAppOptions): Hono {
  const { token, service } = options;
  if (token === "") throw new RangeError("the control token must not be empty");
  const app = new Hono().basePath(CONTROL_BASE_PATH);
  app.use("*", requireControlToken(token));
  addReadRoutes(app, service);
  addStepRoutes(app, service);
  addGateRoutes(app, service);
  app.all("*", (c) =>
    errorResponse(
      new ControlError({ code: "not_found", message: `no route for ${c.req.method} ${c.req.path}` }),
    ),
  );
  return app;
}

/** The control app under {@link CONTROL_BASE_PATH}, as its route groups see it. */
type ControlRoutes = Hono<BlankEnv, BlankSchema, string>;

/**
 * The control token check of every route (401 `unauthorized`, constant-time comparison). A browser
 * cannot send a Bearer header when opening a link: the view page alone also takes `?token=` (answered
 * with `referrer-policy: no-referrer`, so the URL does not leak onwards).
 */
function requireControlToken(token: string): MiddlewareHandler {
  return async (c, next) => {
    const fromQuery =
      c.req.method === "GET" && c.req.path.endsWith("/view") ? c.req.query("token") : undefined;
    const presented = readBearerToken(c.req.header("authorization")) ?? fromQuery;
    if (presented === undefined || !tokensEqual(presented, token)) {
      return errorResponse(
        new ControlError({
          code: "unauthorized",
          message:
            presented !== undefined
              ? "wrong control token"
              : c.req.header("authorization") === undefined
                ? "missing Authorization: Bearer <control token>"
                : "the Authorization header must be one `Bearer <control token>`",
        }),
      );
    }
    await next();
  };
}

/** `GET /health` (503 when not ok), `GET /status` and `GET /view` (the HTML page, when the service has one). */
function addReadRoutes(app: ControlRoutes, service: RolloutService): void {
  app.get("/health", async () => {
    try {
      const health = await service.health();
      return Response.json(health, { status: health.ok ? 200 : STATUS_TABLE[health.error.code].status });
    } catch (error) {
      return errorResponse(error);
    }
  });

  app.get("/status", async () => {
    try {
      return Response.json(await service.status());
    } catch (error) {
      return errorResponse(error);
    }
  });

  app.get("/steps/:rollout_id/rows", async (c) => {
    const raw = c.req.param("rollout_id");
    if (!/^(0|[1-9][0-9]*)$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
      return errorResponse(
        new ControlError({
          code: "invalid_body",
          message: `rollout_id: must be an integer >= 0, got "${raw}"`,
          path: "rollout_id",
        }),
      );
    }
    if (service.stepRows === undefined) {
      return errorResponse(new ControlError({ code: "not_found", message: "this service keeps no rows" }));
    }
    try {
      return new Response(await service.stepRows({ rolloutId: Number(raw) }), {
        headers: { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" },
      });
    } catch (error) {
      return errorResponse(error);
    }
  });

  app.get("/view", async () => {
    if (service.view === undefined) {
      return errorResponse(new ControlError({ code: "not_found", message: "this service has no view page" }));
    }
    try {
      return new Response(await service.view(), {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "cache-control": "no-store",
          "referrer-policy": "no-referrer",
        },
      });
    } catch (error) {
      return errorResponse(error);
    }
  });
}

/** `POST /steps` and `POST /evals`: NDJSON streams of the service's records. */
function addStepRoutes(app: ControlRoutes, service: RolloutService): void {
  app.post("/steps", async (c) => {
    const body = await readBody(c.req.raw, stepRequestSchema, { allowEmpty: false });
    if (body instanceof Response) return body;
    return streamRecords((sink) =>
      service.runStep(
        {
          rolloutId: body.rollout_id,
          ...(body.weight_version !== undefined ? { weightVersion: body.weight_version } : {}),
          ...(body.next_step_follows !== undefined ? { nextStepFollows: body.next_step_follows } : {}),
          ...(body.last_step === true || body.final_backfill === true ? { lastStep: true } : {}),
        },
        sink,
      ),
    );
  });

  app.post("/evals", async (c) => {
    const body = await readBody(c.req.raw, evalsRequestSchema, { allowEmpty: false });
    if (body instanceof Response) return body;
    return streamRecords((sink) =>
      service.runEvals(
        { rolloutId: body.rollout_id, ...(body.datasets !== undefined ? { datasets: body.datasets } : {}) },
        sink,
      ),
    );
  });
}

/** `POST /pause` (`timeout_s` → ms), `POST /resume` and `POST /weights` (flush_cache by default). */
function addGateRoutes(app: ControlRoutes, service: RolloutService): void {
  app.post("/pause", async (c) => {
    const body = await readBody(c.req.raw, pauseRequestSchema, { allowEmpty: true });
    if (body instanceof Response) return body;
    return answer(() =>
      service.pause(body.timeout_s !== undefined ? { timeoutMs: body.timeout_s * 1000 } : {}),
    );
  });

  app.post("/resume", async (c) => {
    const body = await readBody(c.req.raw, resumeRequestSchema, { allowEmpty: true });
    if (body instanceof Response) return body;
    return answer(() =>
      service.resume(body.weight_version !== undefined ? { weightVersion: body.weight_version } : {}),
    );
  });

  app.post("/weights", async (c) => {
    const body = await readBody(c.req.raw, weightsRequestSchema, { allowEmpty: false });
    if (body instanceof Response) return body;
    return answer(() =>
      service.updateWeightsFromDisk({
        modelPath: body.model_path,
        ...(body.weight_version !== undefined ? { weightVersion: body.weight_version } : {}),
        loadFormat: body.load_format ?? null,
        flushCache: body.flush_cache ?? true,
      }),
    );
  });
}

async function answer(run: () => Promise<unknown>): Promise<Response> {
  try {
    return Response.json(await run());
  } catch (error) {
    return errorResponse(error);
  }
}

/** Parses and validates a JSON body; a `Response` (400 `invalid_body`) when it is not acceptable. */
async function readBody<T extends z.ZodType>(
  request: Request,
  schema: T,
  { allowEmpty }: { allowEmpty: boolean },
): Promise<z.infer<T> | Response> {
  const text = await request.text();
  let json: unknown;
  if (text.trim() === "" && allowEmpty) json = {};
  else {
    try {
      json = JSON.parse(text);
    } catch {
      return errorResponse(
        new ControlError({
          code: "invalid_body",
          message: text.trim() === "" ? "the body is empty; expected a JSON object" : "the body is not JSON",
        }),
      );
    }
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = issue.path.map(String).join(".");
  return errorResponse(
    new ControlError({
      code: "invalid_body",
      message: path === "" ? issue.message : `${path}: ${issue.message}`,
      ...(path !== "" ? { path } : {}),
    }),
  );
}

/** `{"error": {code, message, path?}}` with the code's status; an unknown error is 500 `internal_error`. */
export function errorResponse(error: unknown): Response {
  const known = ControlError.isInstance(error)
    ? error
    : new ControlError({
        code: "internal_error",
        message: error instanceof Error ? error.message : String(error),
        cause: error,
      });
  const body: ControlErrorBody = {
    error: {
      code: known.code,
      message: known.message,
      ...(known.path !== undefined ? { path: known.path } : {}),
    },
  };
  return Response.json(body, { status: known.status });
}

/**
 * Answers once the run reports its first record (200 NDJSON stream) or fails before one (an error
 * answer). Records after the client left are dropped; the run itself is never cancelled.
 */
function streamRecords(run: (sink: ControlRecordSink) => Promise<void>): Promise<Response> {
  const encoder = new TextEncoder();
  return new Promise<Response>((resolve) => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let open = true;
    let started = false;
    const stream = new ReadableStream<Uint8Array>({
      start(streamController) {
        controller = streamController;
      },
      cancel() {
        open = false;
      },
    });
    const start = () => {
      if (started) return;
      started = true;
      resolve(new Response(stream, { status: 200, headers: NDJSON_HEADERS }));
    };
    const write = (record: ControlRecord) => {
      if (!open) return;
      try {
        controller.enqueue(encoder.encode(`${JSON.stringify(record)}\n`));
      } catch {
        open = false;
      }
    };
    const close = () => {
      if (!open) return;
      open = false;
      try {
        controller.close();
      } catch {
        // Already closed or errored by the reader.
      }
    };
    const sink: ControlRecordSink = (record) => {
      start();
      write(record);
    };
    Promise.resolve()
      .then(() => run(sink))
      .then(
        () => {
          start();
          close();
        },
        (error: unknown) => {
          if (!started) {
            started = true;
            resolve(errorResponse(error));
            return;
          }
          const code = ControlError.isInstance(error) ? error.code : "internal_error";
          write({
            type: "error",
            error: { code, message: error instanceof Error ? error.message : String(error) },
          });
          close();
        },
      );
  });
}
