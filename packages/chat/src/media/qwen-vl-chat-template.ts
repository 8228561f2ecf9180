/**
 * A Qwen2.5-VL-style vision chat template written for Relax (it is not any model's own template; use the
 * model's `chat_template` in production). It renders the Qwen ChatML frame `<|im_start|>{role}\n…<|im_end|>\n`,
 * each image part as `<|vision_start|><|image_pad|><|vision_end|>` (one pad: the processor expands it for
 * training, SGLang for inference), Qwen-style function tools in the system turn, assistant tool calls as
 * `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`, and consecutive tool messages as one user turn of
 * `<tool_response>` blocks that may hold images. It loops over `message.content`, so renderers hand it
 * content parts (`openai` content format). A conversation without a system message gets
 * "You are a helpful assistant." when no tools are given, as Qwen2-VL's template does.
 */
export const QWEN_VL_STYLE_CHAT_TEMPLATE: string = [
  "{% macro render_content(content) %}",
  "{% if content is string %}{{ content }}",
  "{% else %}{% for part in content %}",
  "{% if part.type == 'image' or part.type == 'image_url' %}<|vision_start|><|image_pad|><|vision_end|>",
  "{% elif part.type == 'text' %}{{ part.text }}",
  "{% endif %}{% endfor %}{% endif %}",
  "{% endmacro %}",
  "{% if tools %}",
  "<|im_start|>system{{ '\\n' }}",
  "{% if messages[0].role == 'system' %}{{ render_content(messages[0].content) }}{{ '\\n' }}{{ '\\n' }}{% endif %}",
  "# Tools{{ '\\n' }}{{ '\\n' }}Functions you may call, one JSON schema per line:{{ '\\n' }}<tools>",
  "{% for tool in tools %}{{ '\\n' }}{{ tool | tojson }}{% endfor %}",
  "{{ '\\n' }}</tools>{{ '\\n' }}{{ '\\n' }}Call a function by answering with a JSON object inside tags:{{ '\\n' }}<tool_call>{{ '\\n' }}{\"name\": <function-name>, \"arguments\": <args-json-object>}{{ '\\n' }}</tool_call><|im_end|>{{ '\\n' }}",
  "{% elif messages[0].role != 'system' %}",
  "<|im_start|>system{{ '\\n' }}You are a helpful assistant.<|im_end|>{{ '\\n' }}",
  "{% endif %}",
  "{% for message in messages %}",
  "{% if message.role == 'system' %}",
  "{% if not (loop.first and tools) %}<|im_start|>system{{ '\\n' }}{{ render_content(message.content) }}<|im_end|>{{ '\\n' }}{% endif %}",
  "{% elif message.role == 'user' %}",
  "<|im_start|>user{{ '\\n' }}{{ render_content(message.content) }}<|im_end|>{{ '\\n' }}",
  "{% elif message.role == 'assistant' %}",
  "<|im_start|>assistant{{ '\\n' }}{{ render_content(message.content) }}",
  "{% if message.tool_calls %}{% for call in message.tool_calls %}",
  "{% if (loop.first and message.content) or not loop.first %}{{ '\\n' }}{% endif %}",
  '<tool_call>{{ \'\\n\' }}{"name": "{{ call.function.name }}", "arguments": {{ call.function.arguments | tojson }}}{{ \'\\n\' }}</tool_call>',
  "{% endfor %}{% endif %}",
  "<|im_end|>{{ '\\n' }}",
  "{% elif message.role == 'tool' %}",
  "{% if loop.first or messages[loop.index0 - 1].role != 'tool' %}<|im_start|>user{% endif %}",
  "{{ '\\n' }}<tool_response>{{ '\\n' }}{{ render_content(message.content) }}{{ '\\n' }}</tool_response>",
  "{% if loop.last or messages[loop.index0 + 1].role != 'tool' %}<|im_end|>{{ '\\n' }}{% endif %}",
  "{% endif %}",
  "{% endfor %}",
  "{% if add_generation_prompt %}<|im_start|>assistant{{ '\\n' }}{% endif %}",
].join("");
