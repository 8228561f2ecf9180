#!/usr/bin/env node
// One agent app per SDK framework case (SDK_CASE), run by relax rollout in the harness tests: it gives the
// model a `write_file` tool, runs the framework's own tool loop until the model answers, and writes the
// implicit output. Each case uses the framework the way its documentation shows, with default settings.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const env = process.env;
const ioDir = env.RELAX_SESSION_IO_DIR;
const input = JSON.parse(readFileSync(env.RELAX_INPUT_JSON, "utf8"));
const baseUrl = env.RELAX_BASE_URL.replace(/\/+$/, "");
const apiKey = env.RELAX_SESSION_ID;
const workDir = join(ioDir, "work");
mkdirSync(workDir, { recursive: true });
const task = input.messages
  .filter((m) => m.role === "user")
  .map((m) => m.content)
  .join("\n\n");
const system = `You are a file agent. Working directory: ${workDir}`;
const model = "relax-policy";

const schema = {
  type: "object",
  properties: {
    file_path: { type: "string", description: "Absolute path of the file" },
    content: { type: "string", description: "The file's content" },
  },
  required: ["file_path", "content"],
  additionalProperties: false,
};
const description = "Write a file (creating its folder).";
function writeFile({ file_path, content }) {
  mkdirSync(dirname(file_path), { recursive: true });
  writeFileSync(file_path, content);
  return `wrote ${content.length} bytes to ${file_path}`;
}

const cases = {
  async "openai-chat"() {
    const { default: OpenAI } = await import("openai");
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey, maxRetries: 0 });
    const tools = [{ type: "function", function: { name: "write_file", description, parameters: schema } }];
    const messages = [
      { role: "system", content: system },
      { role: "user", content: task },
    ];
    for (;;) {
      const { choices } = await client.chat.completions.create({ model, messages, tools });
      const message = choices[0].message;
      messages.push(message);
      if (!message.tool_calls?.length) return message.content;
      for (const call of message.tool_calls) {
        messages.push({
          role: "tool",
          tool_call_id: call.id,
          content: writeFile(JSON.parse(call.function.arguments)),
        });
      }
    }
  },
  async "openai-chat-stream"() {
    const { default: OpenAI } = await import("openai");
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey, maxRetries: 0 });
    const tools = [{ type: "function", function: { name: "write_file", description, parameters: schema } }];
    const messages = [
      { role: "system", content: system },
      { role: "user", content: task },
    ];
    for (;;) {
      const stream = client.chat.completions.stream({ model, messages, tools });
      const completion = await stream.finalChatCompletion();
      const message = completion.choices[0].message;
      messages.push({
        role: "assistant",
        content: message.content ?? "",
        ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}),
      });
      if (!message.tool_calls?.length) return message.content;
      for (const call of message.tool_calls) {
        messages.push({
          role: "tool",
          tool_call_id: call.id,
          content: writeFile(JSON.parse(call.function.arguments)),
        });
      }
    }
  },
  async "openai-runtools"() {
    const { default: OpenAI } = await import("openai");
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey, maxRetries: 0 });
    const runner = client.chat.completions.runTools({
      model,
      messages: [
        { role: "system", content: system },
        { role: "user", content: task },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "write_file",
            description,
            parameters: schema,
            function: writeFile,
            parse: JSON.parse,
          },
        },
      ],
    });
    return await runner.finalContent();
  },
  async "openai-responses"() {
    const { default: OpenAI } = await import("openai");
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey, maxRetries: 0 });
    const tools = [{ type: "function", name: "write_file", description, parameters: schema, strict: true }];
    const items = [{ role: "user", content: task }];
    for (;;) {
      const response = await client.responses.create({ model, instructions: system, input: items, tools });
      items.push(...response.output);
      const calls = response.output.filter((item) => item.type === "function_call");
      if (calls.length === 0) return response.output_text;
      for (const call of calls) {
        items.push({
          type: "function_call_output",
          call_id: call.call_id,
          output: writeFile(JSON.parse(call.arguments)),
        });
      }
    }
  },
  async "openai-responses-stream"() {
    const { default: OpenAI } = await import("openai");
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey, maxRetries: 0 });
    const tools = [{ type: "function", name: "write_file", description, parameters: schema, strict: true }];
    const items = [{ role: "user", content: task }];
    for (;;) {
      const stream = client.responses.stream({ model, instructions: system, input: items, tools });
      const response = await stream.finalResponse();
      items.push(...response.output);
      const calls = response.output.filter((item) => item.type === "function_call");
      if (calls.length === 0) return response.output_text;
      for (const call of calls) {
        items.push({
          type: "function_call_output",
          call_id: call.call_id,
          output: writeFile(JSON.parse(call.arguments)),
        });
      }
    }
  },
  async "anthropic-create"() {
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    const client = new Anthropic({ baseURL: baseUrl, apiKey, maxRetries: 0 });
    const tools = [{ name: "write_file", description, input_schema: schema }];
    const messages = [{ role: "user", content: task }];
    for (;;) {
      const message = await client.messages.create({ model, max_tokens: 1024, system, messages, tools });
      messages.push({ role: "assistant", content: message.content });
      const uses = message.content.filter((block) => block.type === "tool_use");
      if (uses.length === 0)
        return message.content
          .filter((b) => b.type === "text")
          .map((b) => b.text)
          .join("");
      messages.push({
        role: "user",
        content: uses.map((use) => ({
          type: "tool_result",
          tool_use_id: use.id,
          content: writeFile(use.input),
        })),
      });
    }
  },
  async "anthropic-stream"() {
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    const client = new Anthropic({ baseURL: baseUrl, apiKey, maxRetries: 0 });
    const tools = [{ name: "write_file", description, input_schema: schema }];
    const messages = [{ role: "user", content: task }];
    for (;;) {
      const message = await client.messages
        .stream({ model, max_tokens: 1024, system, messages, tools })
        .finalMessage();
      messages.push({ role: "assistant", content: message.content });
      const uses = message.content.filter((block) => block.type === "tool_use");
      if (uses.length === 0)
        return message.content
          .filter((b) => b.type === "text")
          .map((b) => b.text)
          .join("");
      messages.push({
        role: "user",
        content: uses.map((use) => ({
          type: "tool_result",
          tool_use_id: use.id,
          content: writeFile(use.input),
        })),
      });
    }
  },
  async "anthropic-toolrunner"() {
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    const { betaTool } = await import("@anthropic-ai/sdk/helpers/beta/json-schema");
    const client = new Anthropic({ baseURL: baseUrl, apiKey, maxRetries: 0 });
    const message = await client.beta.messages.toolRunner({
      model,
      max_tokens: 1024,
      system,
      messages: [{ role: "user", content: task }],
      tools: [betaTool({ name: "write_file", description, inputSchema: schema, run: writeFile })],
    });
    return message.content
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join("");
  },
  async "agents-chat"() {
    return await runAgents({ useResponses: false });
  },
  async "agents-responses"() {
    return await runAgents({ useResponses: true });
  },
  async "agents-output-type"() {
    const { z } = await import("zod");
    return await runAgents({ useResponses: true, outputType: z.object({ answer: z.string() }) });
  },
  async "ai-chat"() {
    const { createOpenAI } = await import("@ai-sdk/openai");
    return await runAiSdk(createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey }).chat(model));
  },
  async "ai-responses"() {
    const { createOpenAI } = await import("@ai-sdk/openai");
    // The provider's default model factory: the Responses API.
    return await runAiSdk(createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey })(model));
  },
  async "ai-anthropic"() {
    const { createAnthropic } = await import("@ai-sdk/anthropic");
    return await runAiSdk(createAnthropic({ baseURL: `${baseUrl}/v1`, apiKey })(model));
  },
  async langgraph() {
    const { ChatOpenAI } = await import("@langchain/openai");
    const { tool } = await import("@langchain/core/tools");
    const { createReactAgent } = await import("@langchain/langgraph/prebuilt");
    const { z } = await import("zod");
    const llm = new ChatOpenAI({ model, apiKey, configuration: { baseURL: `${baseUrl}/v1` }, maxRetries: 0 });
    const writeTool = tool(async (args) => writeFile(args), {
      name: "write_file",
      description,
      schema: z.object({ file_path: z.string(), content: z.string() }),
    });
    const agent = createReactAgent({ llm, tools: [writeTool], prompt: system });
    const result = await agent.invoke({ messages: [{ role: "user", content: task }] });
    const last = result.messages.at(-1);
    return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
  },
  // Apps that switch agent mid-session (agent contexts): a handoff to another agent (its own instructions and
  // tools), and a structured final request (no tools, a response format) after a tool loop.
  async "agents-handoff-chat"() {
    const { OpenAIChatCompletionsModel } = await import("@openai/agents");
    return await runHandoff((client) => new OpenAIChatCompletionsModel(client, model));
  },
  async "agents-handoff-responses"() {
    const { OpenAIResponsesModel } = await import("@openai/agents");
    return await runHandoff((client) => new OpenAIResponsesModel(client, model));
  },
  async "langchain-structured"() {
    const { ChatOpenAI } = await import("@langchain/openai");
    const { tool } = await import("@langchain/core/tools");
    const { HumanMessage, SystemMessage } = await import("@langchain/core/messages");
    const { z } = await import("zod");
    const llm = new ChatOpenAI({ model, apiKey, configuration: { baseURL: `${baseUrl}/v1` }, maxRetries: 0 });
    const writeTool = tool(async (args) => writeFile(args), {
      name: "write_file",
      description,
      schema: z.object({ file_path: z.string(), content: z.string() }),
    });
    const messages = [new SystemMessage(system), new HumanMessage(task)];
    const withTools = llm.bindTools([writeTool]);
    for (;;) {
      const reply = await withTools.invoke(messages);
      messages.push(reply);
      if (!reply.tool_calls?.length) break;
      for (const call of reply.tool_calls) messages.push(await writeTool.invoke(call));
    }
    // The final answer as structured output, on the same conversation (ChatOpenAI's default method).
    const structured = llm.withStructuredOutput(z.object({ answer: z.string() }));
    const { answer } = await structured.invoke(messages);
    return answer;
  },
  async "langgraph-response-format"() {
    const { ChatOpenAI } = await import("@langchain/openai");
    const { tool } = await import("@langchain/core/tools");
    const { createReactAgent } = await import("@langchain/langgraph/prebuilt");
    const { z } = await import("zod");
    const llm = new ChatOpenAI({ model, apiKey, configuration: { baseURL: `${baseUrl}/v1` }, maxRetries: 0 });
    const writeTool = tool(async (args) => writeFile(args), {
      name: "write_file",
      description,
      schema: z.object({ file_path: z.string(), content: z.string() }),
    });
    const agent = createReactAgent({
      llm,
      tools: [writeTool],
      prompt: system,
      responseFormat: z.object({ answer: z.string() }),
    });
    const result = await agent.invoke({ messages: [{ role: "user", content: task }] });
    return result.structuredResponse.answer;
  },
};

/**
 * @openai/agents with a handoff: a triage agent (its own instructions, no tools, a handoff) hands the task to
 * a file agent (other instructions, the write_file tool) that writes the file and answers.
 */
async function runHandoff(createModel) {
  const { default: OpenAI } = await import("openai");
  const { Agent, run, tool, setTracingDisabled } = await import("@openai/agents");
  const { z } = await import("zod");
  setTracingDisabled(true);
  const agentModel = createModel(new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey, maxRetries: 0 }));
  const fileAgent = new Agent({
    name: "file agent",
    instructions: system,
    handoffDescription: "Creates and writes files.",
    model: agentModel,
    tools: [
      tool({
        name: "write_file",
        description,
        parameters: z.object({ file_path: z.string(), content: z.string() }),
        execute: writeFile,
      }),
    ],
  });
  const triage = Agent.create({
    name: "triage agent",
    instructions: "You are a triage agent. Hand every file task to the file agent.",
    model: agentModel,
    handoffs: [fileAgent],
  });
  const result = await run(triage, task);
  return result.finalOutput;
}

/** @openai/agents: one Agent with the write_file tool, run by a Runner on a provider for the session. */
async function runAgents({ useResponses, outputType }) {
  const { Agent, Runner, tool, setTracingDisabled, OpenAIProvider } = await import("@openai/agents");
  const { z } = await import("zod");
  setTracingDisabled(true);
  const writeTool = tool({
    name: "write_file",
    description,
    parameters: z.object({ file_path: z.string(), content: z.string() }),
    execute: writeFile,
  });
  const agent = new Agent({
    name: "file agent",
    instructions: system,
    model,
    tools: [writeTool],
    ...(outputType !== undefined ? { outputType } : {}),
  });
  const runner = new Runner({
    modelProvider: new OpenAIProvider({ apiKey, baseURL: `${baseUrl}/v1`, useResponses }),
  });
  const result = await runner.run(agent, task);
  return typeof result.finalOutput === "string" ? result.finalOutput : result.finalOutput.answer;
}

/** Vercel AI SDK: generateText with the write_file tool until the model answers. */
async function runAiSdk(languageModel) {
  const { generateText, tool, stepCountIs } = await import("ai");
  const { z } = await import("zod");
  const result = await generateText({
    model: languageModel,
    system,
    prompt: task,
    tools: {
      write_file: tool({
        description,
        inputSchema: z.object({ file_path: z.string(), content: z.string() }),
        execute: writeFile,
      }),
    },
    stopWhen: stepCountIs(5),
  });
  return result.text;
}

const run = cases[env.SDK_CASE];
if (run === undefined) {
  console.error(`SDK_CASE must be one of ${Object.keys(cases).join(", ")}`);
  process.exit(2);
}
const answer = await run();
writeFileSync(
  env.RELAX_OUTPUT_JSON,
  JSON.stringify({
    kind: "implicit",
    metadata: { harness: env.SDK_CASE, exit_code: 0, answer, work_dir: workDir },
  }),
);
