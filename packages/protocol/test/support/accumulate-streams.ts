import type { EventSourceMessage } from "eventsource-parser";

// biome-ignore lint/suspicious/noExplicitAny: the folded JSON has any shape; tests compare it with toEqual.
type Json = Record<string, any>;

/**
 * Folds Chat Completions chunks into a `chat.completion` the way OpenAI-compatible clients do: content,
 * reasoning and tool-call arguments concatenated, tool calls merged by `index`, logprobs appended,
 * finish reason and usage from the chunk that carries them. Stops at `[DONE]`.
 */
export function accumulateChatCompletion(events: EventSourceMessage[]): Json {
  let completion: Json | undefined;
  const toolCalls: Json[] = [];
  for (const event of events) {
    if (event.data === "[DONE]") break;
    const chunk = JSON.parse(event.data) as Json;
    if (chunk.error) throw Object.assign(new Error(chunk.error.message), { body: chunk });
    const choice = chunk.choices[0];
    completion ??= {
      id: chunk.id,
      object: "chat.completion",
      created: chunk.created,
      model: chunk.model,
      choices: [
        { index: 0, message: { role: "assistant", content: null }, logprobs: null, finish_reason: null },
      ],
    };
    const target = completion.choices[0];
    const { delta } = choice;
    if (typeof delta.content === "string")
      target.message.content = (target.message.content ?? "") + delta.content;
    for (const key of ["reasoning_content", "reasoning"]) {
      if (typeof delta[key] === "string") target.message[key] = (target.message[key] ?? "") + delta[key];
    }
    for (const call of delta.tool_calls ?? []) {
      const { index, ...rest } = call;
      toolCalls[index] ??= { id: "", type: "function", function: { name: "", arguments: "" } };
      const slot = toolCalls[index]!;
      if (rest.id) slot.id = rest.id;
      slot.function.name += rest.function?.name ?? "";
      slot.function.arguments += rest.function?.arguments ?? "";
    }
    if (choice.logprobs) {
      target.logprobs ??= { content: [], refusal: null };
      target.logprobs.content.push(...choice.logprobs.content);
    }
    if (choice.finish_reason) target.finish_reason = choice.finish_reason;
    if (chunk.usage) completion.usage = chunk.usage;
  }
  if (!completion) throw new Error("no chunks");
  if (toolCalls.length > 0) completion.choices[0].message.tool_calls = toolCalls;
  return completion;
}

/**
 * Folds Responses events into a Response as Codex and the OpenAI SDK do: the snapshot from
 * `response.created`, items added and replaced by index, text and arguments from deltas; checks that
 * sequence numbers run 0, 1, 2, … and that every frame's `event` equals its `type`. Returns the
 * accumulated Response (with the status and usage of the terminal event) and the terminal event.
 */
export function accumulateResponse(events: EventSourceMessage[]): { response: Json; terminal: Json } {
  let snapshot: Json | undefined;
  let terminal: Json | undefined;
  events.forEach((event, i) => {
    const data = JSON.parse(event.data) as Json;
    if (data.type !== event.event) throw new Error(`event ${event.event} carries type ${data.type}`);
    if (data.sequence_number !== i) throw new Error(`sequence_number ${data.sequence_number} at ${i}`);
    if (data.type === "response.created") {
      snapshot = structuredClone(data.response);
      return;
    }
    if (!snapshot) throw new Error(`${data.type} before response.created`);
    const output = snapshot.output as Json[];
    switch (data.type) {
      case "response.output_item.added":
        output[data.output_index] = structuredClone(data.item);
        break;
      case "response.content_part.added":
        output[data.output_index]!.content.push(structuredClone(data.part));
        break;
      case "response.output_text.delta":
      case "response.reasoning_text.delta":
        output[data.output_index]!.content[data.content_index].text += data.delta;
        break;
      case "response.function_call_arguments.delta":
        output[data.output_index]!.arguments += data.delta;
        break;
      case "response.output_item.done":
        // The streamed pieces must add up to the finished item, except its final status.
        if (
          JSON.stringify({ ...output[data.output_index], status: data.item.status }) !==
          JSON.stringify(data.item)
        ) {
          throw new Error(`item ${data.output_index} does not match its deltas`);
        }
        output[data.output_index] = structuredClone(data.item);
        break;
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        terminal = data;
        snapshot = {
          ...snapshot,
          status: data.response.status,
          incomplete_details: data.response.incomplete_details,
          error: data.response.error,
          usage: data.response.usage,
        };
        break;
    }
  });
  if (!snapshot || !terminal) throw new Error("no terminal event");
  return { response: snapshot, terminal };
}

/**
 * Folds Anthropic Messages events into a message as the SDK's `MessageStream` does: `message_start`
 * snapshot, blocks by index, text / thinking / signature appended, `input_json_delta` concatenated and
 * parsed at `content_block_stop`, `stop_reason` and usage from `message_delta`. Throws on `error`.
 */
export function accumulateAnthropicMessage(events: EventSourceMessage[]): Json {
  let message: Json | undefined;
  const partialJson: string[] = [];
  let stopped = false;
  for (const event of events) {
    const data = JSON.parse(event.data) as Json;
    if (data.type !== event.event) throw new Error(`event ${event.event} carries type ${data.type}`);
    switch (data.type) {
      case "ping":
        break;
      case "error":
        throw Object.assign(new Error(data.error.message), { body: data });
      case "message_start":
        message = structuredClone(data.message);
        break;
      case "content_block_start":
        message!.content[data.index] = structuredClone(data.content_block);
        partialJson[data.index] = "";
        break;
      case "content_block_delta": {
        const block = message!.content[data.index];
        const { delta } = data;
        if (delta.type === "text_delta") block.text += delta.text;
        else if (delta.type === "thinking_delta") block.thinking += delta.thinking;
        else if (delta.type === "signature_delta") block.signature = delta.signature;
        else if (delta.type === "input_json_delta") partialJson[data.index] += delta.partial_json;
        break;
      }
      case "content_block_stop": {
        const block = message!.content[data.index];
        if (block.type === "tool_use") block.input = JSON.parse(partialJson[data.index] || "{}");
        break;
      }
      case "message_delta":
        message!.stop_reason = data.delta.stop_reason;
        message!.stop_sequence = data.delta.stop_sequence;
        message!.usage = { ...message!.usage, ...data.usage };
        break;
      case "message_stop":
        stopped = true;
        break;
      default:
        throw new Error(`unexpected event ${data.type}`);
    }
  }
  if (!message || !stopped) throw new Error("stream ended without message_stop");
  return message;
}
