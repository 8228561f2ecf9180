/** Request bodies every protocol must reject, with the exact answer. Shared by the HTTP test and the fuzz seeds. */
export interface RejectedCase {
  name: string;
  path: string;
  body: unknown;
  headers?: Record<string, string>;
  method?: string;
  status: number;
  message: string;
  /** OpenAI `param` (Chat / Responses) or Anthropic `error.type`. */
  param?: string | null;
  anthropicType?: string;
}

const user = { role: "user", content: "hi" };
const call = (args: unknown) => ({
  id: "call_1",
  type: "function",
  function: { name: "f", arguments: args },
});
const CHAT = "/v1/chat/completions";
const RESP = "/v1/responses";
const MSG = "/v1/messages";
const chat = (extra: Record<string, unknown>) => ({ model: "m", messages: [user], ...extra });
const resp = (extra: Record<string, unknown>) => ({ model: "m", input: "hi", ...extra });
const msg = (extra: Record<string, unknown>) => ({ model: "m", max_tokens: 16, messages: [user], ...extra });

export const REJECTED_CASES: RejectedCase[] = [
  // Chat Completions
  {
    name: "chat body is an array",
    path: CHAT,
    body: [],
    status: 400,
    message: "body: must be a JSON object, got an array",
    param: "body",
  },
  {
    name: "chat body is not JSON",
    path: CHAT,
    body: '{"messages": [',
    status: 400,
    message: "body: is not valid JSON (Unexpected end of JSON input)",
    param: "body",
  },
  {
    name: "chat messages missing",
    path: CHAT,
    body: { model: "m" },
    status: 400,
    message: "messages: is required",
    param: "messages",
  },
  {
    name: "chat messages empty",
    path: CHAT,
    body: { messages: [] },
    status: 400,
    message: "messages: must contain at least one message",
    param: "messages",
  },
  {
    name: "chat unknown role",
    path: CHAT,
    body: { messages: [user, { role: "function", content: "x" }] },
    status: 400,
    message:
      'messages[1].role: unsupported role "function"; expected "system", "user", "assistant", "tool" or "developer"',
    param: "messages",
  },
  {
    name: "chat empty user content",
    path: CHAT,
    body: { messages: [{ role: "user", content: "" }] },
    status: 400,
    message: "messages[0].content: must be non-empty",
    param: "messages",
  },
  {
    name: "chat tool call without id",
    path: CHAT,
    body: { messages: [user, { role: "assistant", content: null, tool_calls: [{ ...call("{}"), id: "" }] }] },
    status: 400,
    message: "messages[1].tool_calls[0].id: must be a non-empty string",
    param: "messages",
  },
  {
    name: "chat arguments not JSON",
    path: CHAT,
    body: { messages: [user, { role: "assistant", content: null, tool_calls: [call("{city: Paris}")] }] },
    status: 400,
    message: "messages[1].tool_calls[0].function.arguments: expected a string key at offset 1",
    param: "messages",
  },
  {
    name: "chat arguments with duplicate keys",
    path: CHAT,
    body: { messages: [user, { role: "assistant", content: null, tool_calls: [call('{"a":1,"a":2}')] }] },
    status: 400,
    message: 'messages[1].tool_calls[0].function.arguments: duplicate key "a" at offset 10',
    param: "messages",
  },
  {
    name: "chat arguments not an object",
    path: CHAT,
    body: { messages: [user, { role: "assistant", content: null, tool_calls: [call("[1,2]")] }] },
    status: 400,
    message: "messages[1].tool_calls[0].function.arguments: must encode a JSON object, got an array",
    param: "messages",
  },
  {
    name: "chat tool calls on a user message",
    path: CHAT,
    body: { messages: [{ ...user, tool_calls: [call("{}")] }] },
    status: 400,
    message: 'messages[0].tool_calls: only assistant messages may carry tool calls (role is "user")',
    param: "messages",
  },
  {
    name: "chat image part without url",
    path: CHAT,
    body: {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "see" },
            { type: "image_url", image_url: {} },
          ],
        },
      ],
    },
    status: 400,
    message: "messages[0].content[1].image_url.url: must be a non-empty URL string",
    param: "messages",
  },
  {
    name: "chat reserved kwarg add_generation_prompt",
    path: CHAT,
    body: chat({ chat_template_kwargs: { add_generation_prompt: false } }),
    status: 400,
    message:
      "chat_template_kwargs.add_generation_prompt: is managed by Relax and may not be set (reserved: add_generation_prompt, tokenize, tools)",
    param: "chat_template_kwargs",
  },
  {
    name: "chat reserved kwarg tools",
    path: CHAT,
    body: chat({ chat_template_kwargs: { tools: [] } }),
    status: 400,
    message:
      "chat_template_kwargs.tools: is managed by Relax and may not be set (reserved: add_generation_prompt, tokenize, tools)",
    param: "chat_template_kwargs",
  },
  {
    name: "chat max_tokens zero",
    path: CHAT,
    body: chat({ max_tokens: 0 }),
    status: 400,
    message: "max_tokens: must be a positive integer, got 0",
    param: "max_tokens",
  },
  {
    name: "chat max_completion_tokens fractional",
    path: CHAT,
    body: chat({ max_completion_tokens: 1.5 }),
    status: 400,
    message: "max_completion_tokens: must be an integer, got a number",
    param: "max_completion_tokens",
  },
  {
    name: "chat stop is a number",
    path: CHAT,
    body: chat({ stop: 5 }),
    status: 400,
    message: "stop: must be a string or a list, got a number",
    param: "stop",
  },
  {
    name: "chat stop holds an empty string",
    path: CHAT,
    body: chat({ stop: ["\n", ""] }),
    status: 400,
    message: "stop[1]: must be a non-empty string",
    param: "stop",
  },
  {
    name: "chat logprobs is a string",
    path: CHAT,
    body: chat({ logprobs: "yes" }),
    status: 400,
    message: "logprobs: must be a boolean, got a string",
    param: "logprobs",
  },
  {
    name: "chat stream is a string",
    path: CHAT,
    body: chat({ stream: "true" }),
    status: 400,
    message: "stream: must be a boolean, got a string",
    param: "stream",
  },
  {
    name: "chat tool without a name",
    path: CHAT,
    body: chat({ tools: [{ type: "function", function: { parameters: {} } }] }),
    status: 400,
    message: "tools[0].function.name: must be a non-empty string",
    param: "tools",
  },
  {
    name: "chat duplicate tool names",
    path: CHAT,
    body: chat({
      tools: [
        { type: "function", function: { name: "f" } },
        { type: "function", function: { name: "f" } },
      ],
    }),
    status: 400,
    message: 'tools[1].function.name: duplicate tool name "f"',
    param: "tools",
  },
  // Responses
  {
    name: "responses previous_response_id",
    path: RESP,
    body: resp({ previous_response_id: "resp_1" }),
    status: 400,
    message:
      "previous_response_id: is not supported: Relax keeps no server-side state; send the full conversation in `input`",
    param: "previous_response_id",
  },
  {
    name: "responses conversation",
    path: RESP,
    body: resp({ conversation: "conv_1" }),
    status: 400,
    message:
      "conversation: is not supported: Relax keeps no server-side state; send the full conversation in `input`",
    param: "conversation",
  },
  {
    name: "responses input missing",
    path: RESP,
    body: { model: "m" },
    status: 400,
    message: "input: has an unsupported shape",
    param: "input",
  },
  {
    name: "responses input empty",
    path: RESP,
    body: resp({ input: [] }),
    status: 400,
    message: "input: must contain at least one item",
    param: "input",
  },
  {
    name: "responses function_call_output without call_id",
    path: RESP,
    body: resp({ input: [{ type: "function_call_output", output: "x" }] }),
    status: 400,
    message: "input[0].call_id: is required",
    param: "input",
  },
  {
    name: "responses function_call arguments not JSON",
    path: RESP,
    body: resp({
      input: [
        { role: "user", content: "hi" },
        { type: "function_call", call_id: "c1", name: "f", arguments: "{" },
      ],
    }),
    status: 400,
    message: "input[1].arguments: expected a string key at offset 1",
    param: "input",
  },
  {
    name: "responses unsupported item type",
    path: RESP,
    body: resp({
      input: [
        { role: "user", content: "hi" },
        { type: "web_search_call", id: "ws_1" },
      ],
    }),
    status: 400,
    message:
      'input[1].type: unsupported item type "web_search_call"; expected one of "message", "reasoning", "function_call", "function_call_output", "item_reference", "compaction"',
    param: "input",
  },
  {
    name: "responses item reference",
    path: RESP,
    body: resp({ input: [{ type: "item_reference", id: "msg_1" }] }),
    status: 400,
    message:
      "input[0].type: item references are not supported: Relax keeps no server-side state; send the full conversation in `input`",
    param: "input",
  },
  {
    name: "responses item without type or role",
    path: RESP,
    body: resp({ input: [{ content: "hi" }] }),
    status: 400,
    message:
      'input[0].type: is required (one of "message", "reasoning", "function_call", "function_call_output", "item_reference", "compaction")',
    param: "input",
  },
  {
    name: "responses unsupported content part",
    path: RESP,
    body: resp({ input: [{ role: "user", content: [{ type: "input_file", file_id: "f1" }] }] }),
    status: 400,
    message:
      'input[0].content[0].type: unsupported type "input_file"; expected one of "input_text", "output_text", "input_image"',
    param: "input",
  },
  {
    name: "responses image in an assistant message",
    path: RESP,
    body: resp({
      input: [
        { role: "user", content: "hi" },
        { role: "assistant", content: [{ type: "input_image", image_url: "https://x/y.png" }] },
      ],
    }),
    status: 400,
    message:
      "input[1].content[0].type: input_image is only allowed in user messages and function_call_output",
    param: "input",
  },
  {
    name: "responses empty user text",
    path: RESP,
    body: resp({ input: [{ role: "user", content: [{ type: "input_text", text: "" }] }] }),
    status: 400,
    message: "input[0].content: must be non-empty",
    param: "input",
  },
  {
    name: "responses unknown reasoning effort",
    path: RESP,
    body: resp({ reasoning: { effort: "extreme" } }),
    status: 400,
    message:
      'reasoning.effort: must be one of "none", "minimal", "low", "medium", "high", "xhigh", "max", got "extreme"',
    param: "reasoning",
  },
  {
    name: "responses function tool without name",
    path: RESP,
    body: resp({ tools: [{ type: "function", parameters: {} }] }),
    status: 400,
    message: "tools[0].name: is required",
    param: "tools",
  },
  {
    name: "responses duplicate tool names",
    path: RESP,
    body: resp({
      tools: [
        { type: "function", name: "f" },
        { type: "function", name: "f" },
      ],
    }),
    status: 400,
    message: 'tools[1].name: duplicate tool name "f"',
    param: "tools",
  },
  // Anthropic Messages
  {
    name: "messages max_tokens missing",
    path: MSG,
    body: { model: "m", messages: [user] },
    status: 400,
    message: "max_tokens: is required",
    anthropicType: "invalid_request_error",
  },
  {
    name: "messages empty",
    path: MSG,
    body: msg({ messages: [] }),
    status: 400,
    message: "messages: must contain at least one message",
    anthropicType: "invalid_request_error",
  },
  {
    name: "messages OpenAI tool role",
    path: MSG,
    body: msg({ messages: [user, { role: "tool", tool_call_id: "call_1", content: "42" }] }),
    status: 400,
    message:
      'messages[1].role: must be "user", "assistant" or "system", got "tool"; an Anthropic tool result is a {"type": "tool_result", "tool_use_id": …, "content": …} block in a "user" message (the "tool" role is OpenAI Chat Completions)',
    anthropicType: "invalid_request_error",
  },
  {
    name: "messages OpenAI tool_calls",
    path: MSG,
    body: msg({
      messages: [
        user,
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
        },
      ],
    }),
    status: 400,
    message:
      'messages[1].tool_calls: is not part of Anthropic Messages; an assistant tool call is a {"type": "tool_use", "id": …, "name": …, "input": {…}} block in `content`',
    anthropicType: "invalid_request_error",
  },
  {
    name: "messages non-image media type",
    path: MSG,
    body: msg({
      messages: [
        user,
        { role: "assistant", content: "ok" },
        {
          role: "user",
          content: [
            { type: "text", text: "see" },
            { type: "text", text: "this" },
            { type: "image", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } },
          ],
        },
      ],
    }),
    status: 400,
    message:
      'messages[2].content[2].source.media_type: must be an image media type (image/*), got "application/pdf"',
    anthropicType: "invalid_request_error",
  },
  {
    name: "messages tool_use in a user message",
    path: MSG,
    body: msg({
      messages: [{ role: "user", content: [{ type: "tool_use", id: "t1", name: "f", input: {} }] }],
    }),
    status: 400,
    message:
      'messages[0].content[0].type: unsupported type "tool_use"; expected one of "text", "image", "tool_result"',
    anthropicType: "invalid_request_error",
  },
  {
    name: "messages tool_result without tool_use_id",
    path: MSG,
    body: msg({ messages: [{ role: "user", content: [{ type: "tool_result", content: "x" }] }] }),
    status: 400,
    message: "messages[0].content[0].tool_use_id: is required",
    anthropicType: "invalid_request_error",
  },
  {
    name: "messages tool_use input is a string",
    path: MSG,
    body: msg({
      messages: [
        user,
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: "{}" }] },
      ],
    }),
    status: 400,
    message: "messages[1].content[0].input: must be an object, got a string",
    anthropicType: "invalid_request_error",
  },
  {
    name: "messages document block",
    path: MSG,
    body: msg({
      messages: [{ role: "user", content: [{ type: "document", source: { type: "text", data: "x" } }] }],
    }),
    status: 400,
    message:
      'messages[0].content[0].type: unsupported type "document"; expected one of "text", "image", "tool_result"',
    anthropicType: "invalid_request_error",
  },
  {
    name: "messages unknown thinking type",
    path: MSG,
    body: msg({ thinking: { type: "on" } }),
    status: 400,
    message: 'thinking.type: must be one of "enabled", "disabled", "adaptive", got "on"',
    anthropicType: "invalid_request_error",
  },
  {
    name: "messages tool without input_schema",
    path: MSG,
    body: msg({ tools: [{ name: "f" }] }),
    status: 400,
    message: "tools[0].input_schema: is required",
    anthropicType: "invalid_request_error",
  },
  {
    name: "messages duplicate tool names",
    path: MSG,
    body: msg({
      tools: [
        { name: "f", input_schema: {} },
        { name: "f", input_schema: {} },
      ],
    }),
    status: 400,
    message: 'tools[1].name: duplicate tool name "f"',
    anthropicType: "invalid_request_error",
  },
  {
    name: "messages empty user blocks",
    path: MSG,
    body: msg({ messages: [{ role: "user", content: [] }] }),
    status: 400,
    message: "messages[0].content: must be non-empty",
    anthropicType: "invalid_request_error",
  },
  // Credentials and routes
  {
    name: "no credential",
    path: CHAT,
    body: chat({}),
    headers: {},
    status: 401,
    message: "missing credential: send `Authorization: Bearer <session id>` or `x-api-key: <session id>`",
    param: null,
  },
  {
    name: "malformed Authorization",
    path: RESP,
    body: resp({}),
    headers: { authorization: "Basic dXNlcjpwYXNz" },
    status: 401,
    message: "malformed Authorization header: expected `Bearer <session id>`",
    param: null,
  },
  {
    name: "no credential on Messages",
    path: MSG,
    body: msg({}),
    headers: {},
    status: 401,
    message: "missing credential: send `Authorization: Bearer <session id>` or `x-api-key: <session id>`",
    anthropicType: "authentication_error",
  },
  {
    name: "unknown path",
    path: "/v1/completions",
    body: chat({}),
    status: 404,
    message: "no route for POST /v1/completions",
    param: null,
  },
];
