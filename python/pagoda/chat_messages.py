"""Chat messages as vLLM's LLM.chat prepares them for the chat template
(vllm.entrypoints.chat_utils): text content parts joined by newlines (the
"string" content format) or kept as a list of text parts ("openai"), and
tool call arguments given to the template as objects."""

import json
import re
from typing import Any, Dict, List, Optional

_ROLES = ("system", "user", "assistant", "tool", "developer")


def _text_parts(content, where: str) -> List[str]:
    texts = []
    for i, part in enumerate(content):
        if isinstance(part, str):
            texts.append(part)
            continue
        kind = part.get("type") if isinstance(part, dict) else None
        if kind != "text" or not isinstance(part.get("text"), str):
            raise ValueError(
                f"{where}[{i}]: only text parts ({{'type': 'text', 'text': ...}}) are supported, got type {kind!r}"
            )
        texts.append(part["text"])
    return texts


def _message(message, where: str, content_format: str) -> Dict[str, Any]:
    if not isinstance(message, dict) or not isinstance(message.get("role"), str):
        raise ValueError(f"{where} must be a dict with a str 'role'")
    if message["role"] not in _ROLES:
        raise ValueError(f"{where}['role'] must be one of {', '.join(_ROLES)}; got {message['role']!r}")
    out = dict(message)  # other fields (name, tool_call_id, reasoning_content, ...) pass through
    content = message.get("content")
    if content is None:
        texts = []  # an assistant turn of tool calls
    elif isinstance(content, str):
        texts = [content]
    elif isinstance(content, list):
        texts = _text_parts(content, f"{where}['content']")
    else:
        raise ValueError(f"{where}['content'] must be a str or a list of content parts")
    if content_format == "openai":
        out["content"] = [{"type": "text", "text": t} for t in texts]
    else:
        out["content"] = "\n".join(texts)
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        out["tool_calls"] = [_parsed_call(c) for c in calls]
    return out


def _parsed_call(call):
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("arguments"), str):
        return call
    try:
        arguments = json.loads(function["arguments"])
    except ValueError:
        return call
    return {**call, "function": {**function, "arguments": arguments}}


def conversations(messages) -> List[List[Dict[str, Any]]]:
    """One conversation (a list of messages) or a list of them, as a list."""
    if not isinstance(messages, list) or not messages:
        raise ValueError("messages must be a non-empty list of messages, or a list of conversations")
    if all(isinstance(m, list) for m in messages):
        return messages
    return [messages]


# A template loop over a message's content ("{% for part in message['content'] %}",
# "... in m.content"), which vLLM's "auto" content format detects in the
# template's syntax tree to give the template the list of parts.
_CONTENT_LOOP = re.compile(r"\{%-?\s*for\s+\w+\s+in\s+\w+(?:\[\s*['\"]content['\"]\s*\]|\.content\b)")


def detect_content_format(template: Optional[str]) -> str:
    """vLLM's "auto" content format: "openai" when the chat template loops over
    a message's content (a list of parts), else "string"."""
    return "openai" if template and _CONTENT_LOOP.search(template) else "string"


def prepare(conversation, content_format: str = "auto", template: Optional[str] = None) -> List[Dict[str, Any]]:
    """The messages of one conversation as the chat template (`template`, the
    text that decides the "auto" content format) gets them."""
    if content_format not in ("auto", "string", "openai"):
        raise ValueError(f"chat_template_content_format must be 'auto', 'string' or 'openai', got {content_format!r}")
    if content_format == "auto":
        content_format = detect_content_format(template)
    if not isinstance(conversation, list) or not conversation:
        raise ValueError("a conversation must be a non-empty list of messages")
    return [_message(m, f"messages[{i}]", content_format) for i, m in enumerate(conversation)]
