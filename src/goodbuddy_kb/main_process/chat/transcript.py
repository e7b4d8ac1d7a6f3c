"""A conversation as a person sends it to a colleague: Markdown, self-contained HTML, or plain
text (one answer, for the clipboard). Under each answer its sources are listed by the numbers
its citations carry, so the ``[n]`` in the answer's text point at them.

Everything shown comes from documents and models and is untrusted: HTML output escapes every
piece of text (no markup from content survives, no script, no remote resource); Markdown output
escapes every ``<`` (no tag renders) and keeps a snippet on its own quoted lines so it cannot
start a heading or a list.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from goodbuddy_kb.contracts.chat import (
    Citation,
    Conversation,
    Message,
    in_one_language,
    unknown_markers,
)
from goodbuddy_kb.contracts.locator import Locator

#: The file's own labels (question, answer, sources) in the reader's language; in both when it
#: is not known (the command line), as the stored no-model notes are.
LABELS: dict[str | None, tuple[str, str, str]] = {
    "zh": ("问题", "回答", "来源"),
    "en": ("Question", "Answer", "Sources"),
    None: ("问题 / Question", "回答 / Answer", "来源 / Sources"),
}

#: Said under a copied or exported answer that cites a number none of its sources has (the
#: window says it under the answer; a copy kept "Compare [9]." without a word).
UNKNOWN_MARKERS: dict[str | None, str] = {
    "zh": "回答中的 {marks} 没有对应的来源：本次检索没有给出这个编号的资料。",
    "en": "No source matches {marks} in this answer: no passage this turn's searches found had"
    " that number.",
}
UNKNOWN_MARKERS[None] = UNKNOWN_MARKERS["zh"] + " / " + UNKNOWN_MARKERS["en"]

#: A library's name by id (None when it was deleted since).
LibraryNames = Callable[[str], str | None]


@dataclass(frozen=True)
class Source:
    number: int
    library: str
    document: str
    locator: str
    snippet: str


#: A place in a document, by the reader's language (neutral notation when it is not known): a
#: Chinese export said "l. 3–7" where the window says "第 3–7 行" (a helper's try).
PLACES: dict[str | None, dict[str, str]] = {
    "zh": {
        "page": "第 {n} 页",
        "slide": "第 {n} 张幻灯片",
        "rows": "第 {n} 行",
        "lines": "第 {n} 行",
    },
    "en": {"page": "p. {n}", "slide": "slide {n}", "rows": "rows {n}", "lines": "l. {n}"},
}
PLACES[None] = PLACES["en"]
#: An answer that did not end: its state, by the reader's language.
STATES: dict[str | None, dict[str, str]] = {
    "zh": {"failed": "失败", "stopped": "已停止", "streaming": "未完成"},
    "en": {"failed": "failed", "stopped": "stopped", "streaming": "unfinished"},
}
STATES[None] = STATES["en"]


def locator_text(locator: Locator, language: str | None = None) -> str:
    """A citation's place in its document, in the reader's language."""
    said = PLACES[language]
    parts: list[str] = []

    def span(kind: str, first: int, last: int | None) -> None:
        n = f"{first}" + (f"–{last}" if last is not None and last != first else "")
        parts.append(said[kind].format(n=n))

    if locator.page is not None:
        span("page", locator.page, locator.last_page)
    if locator.slide is not None:
        span("slide", locator.slide, locator.last_slide)
    if locator.sheet:
        parts.append(locator.sheet)
    if locator.row_start is not None:
        span("rows", locator.row_start, locator.last_row)
    if locator.line_start is not None:
        span("lines", locator.line_start, locator.last_line)
    if locator.chapter:
        parts.append(locator.chapter)
    if locator.heading_path:
        parts.append(" › ".join(locator.heading_path))
    return " · ".join(parts)


def sources(
    citations: Sequence[Citation], names: LibraryNames, language: str | None = None
) -> list[Source]:
    """The answer's sources in its citation numbering (an old citation without a number gets
    its position, as the window shows it)."""
    out: list[Source] = []
    for position, citation in enumerate(citations, start=1):
        out.append(
            Source(
                number=citation.number or position,
                library=names(citation.library_id) or "—",
                document=citation.document_title,
                locator=locator_text(Locator.from_wire(citation.locator), language),
                # its lines kept (a table's rows ran together into one line)
                snippet="\n".join(
                    " ".join(line.split()) for line in citation.snippet.splitlines() if line.strip()
                ),
            )
        )
    return out


#: What the window's badge says of an answer the libraries did not back: an export showed a
#: model's unchecked answer like a grounded one (a helper's try).
UNCHECKED: dict[str | None, dict[str, str]] = {
    "zh": {
        "none": "（模型未检索知识库：回答未对照你的文档）",
        "searched_empty": "（已检索，未找到相关内容）",
    },
    "en": {
        "none": "(The model did not search your libraries: not checked against your documents)",
        "searched_empty": "(Searched: nothing relevant was found)",
    },
}
UNCHECKED[None] = {k: f"{UNCHECKED['zh'][k]} / {UNCHECKED['en'][k]}" for k in UNCHECKED["en"]}


def _checked(message: Message, language: str | None) -> str | None:
    state = message.retrieval
    if message.role != "assistant" or state is None or message.state != "complete":
        return None
    if state.mode == "auto" and not state.searches and not state.reason:
        return UNCHECKED[language]["none"]
    if state.status == "searched_empty":
        return UNCHECKED[language]["searched_empty"]
    return None


def _answer_text(message: Message, language: str | None) -> str:
    # An evidence-only answer's note in the reader's language (both when it is not known).
    text = in_one_language(message.content, language) if language else message.content
    checked = _checked(message, language)
    if checked:
        text = f"{checked}\n\n{text}"
    if message.state != "complete" and message.error:
        state = STATES[language].get(message.state, message.state)
        said = (
            f"（{state}：{message.error}）" if language == "zh" else f"({state}: {message.error})"
        )
        text = f"{text}\n\n{said}".strip()
    unknown = (
        unknown_markers(message.content, message.citations) if message.role == "assistant" else []
    )
    if unknown:
        marks = " ".join(f"[{n}]" for n in unknown)
        text = f"{text}\n\n({UNKNOWN_MARKERS[language].format(marks=marks)})"
    return text


# -- Markdown / plain text --------------------------------------------------------------------
def _md(text: str) -> str:
    """``text`` with every ``<`` escaped, so a Markdown viewer shows a tag from a document or a
    model as text and never renders it (the rest of the answer's Markdown stays)."""
    return text.replace("<", "\\<")


def _quoted(text: str) -> str:
    return "\n".join("> " + _md(line) for line in text.splitlines() or [""])


def answer_markdown(message: Message, names: LibraryNames, language: str | None = None) -> str:
    lines = [_md(_answer_text(message, language))]
    found = sources(message.citations, names, language)
    if found:
        lines.append(f"\n**{LABELS[language][2]}**\n")
        for s in found:
            place = f" — {_md(s.locator)}" if s.locator else ""
            head = f"{s.number}. {_md(s.library)} / {_md(s.document)}{place}"
            lines.append(f"{head}\n\n{_quoted(s.snippet)}\n")
    return "\n".join(lines).rstrip() + "\n"


def answer_text(message: Message, names: LibraryNames, language: str | None = None) -> str:
    lines = [_answer_text(message, language)]
    found = sources(message.citations, names, language)
    if found:
        lines.append(f"\n{LABELS[language][2]}:")
        for s in found:
            place = f" — {s.locator}" if s.locator else ""
            quoted = "\n".join("    " + line for line in s.snippet.splitlines())
            lines.append(f"[{s.number}] {s.library} / {s.document}{place}\n{quoted}")
    return "\n".join(lines).rstrip() + "\n"


def conversation_markdown(
    conversation: Conversation,
    messages: Sequence[Message],
    names: LibraryNames,
    language: str | None = None,
) -> str:
    title = _md(" ".join(conversation.title.split()))
    question, answer, _sources = LABELS[language]
    out = [f"# {title}", "", f"*{_when(conversation.created_at)}*", ""]
    for message in messages:
        if message.role == "user":
            out += [f"## {question}", "", _quoted(message.content), ""]
        else:
            out += [f"## {answer}", "", answer_markdown(message, names, language)]
    return "\n".join(out).rstrip() + "\n"


def _when(stamp: str) -> str:
    """A stored UTC time as this computer's local date and time ("2026-12-05 21:06"; the
    export's head showed "2026-12-05T21:06:27.554+00:00")."""
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return stamp


# -- HTML -------------------------------------------------------------------------------------
_STYLE = (
    "body{font-family:system-ui,'Noto Sans CJK SC',sans-serif;max-width:46em;margin:2em auto;"
    "padding:0 1em;line-height:1.5}.q{background:#eef3fb;padding:.6em 1em;border-radius:6px}"
    ".a{white-space:pre-wrap}ol.src{font-size:.92em;color:#333;list-style:none;padding-left:0}blockquote{margin:.3em 0 .8em;"
    "padding-left:.8em;border-left:3px solid #ccd;color:#444}"
)


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _answer_html(message: Message, names: LibraryNames, language: str | None) -> str:
    parts = [f'<div class="a">{_e(_answer_text(message, language))}</div>']
    found = sources(message.citations, names, language)
    if found:
        parts.append(f'<h3>{LABELS[language][2]}</h3><ol class="src">')
        for s in found:
            place = f" — {_e(s.locator)}" if s.locator else ""
            parts.append(
                f'<li value="{s.number}" id="src-{message.id}-{s.number}">'
                f"[{s.number}] {_e(s.library)} / <b>{_e(s.document)}</b>{place}"
                f"<blockquote>{_e(s.snippet).replace(chr(10), '<br>')}</blockquote></li>"
            )
        parts.append("</ol>")
    return "".join(parts)


def conversation_html(
    conversation: Conversation,
    messages: Sequence[Message],
    names: LibraryNames,
    language: str | None = None,
) -> str:
    title = _e(" ".join(conversation.title.split()))
    question, answer, _sources = LABELS[language]
    body = [f"<h1>{title}</h1><p><i>{_e(_when(conversation.created_at))}</i></p>"]
    for message in messages:
        if message.role == "user":
            body.append(f'<h2>{question}</h2><div class="q">{_e(message.content)}</div>')
        else:
            body.append(f"<h2>{answer}</h2>{_answer_html(message, names, language)}")
    # No script, no remote resource: a CSP that forbids both, should a viewer honour it.
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">"
        f"<title>{title}</title><style>{_STYLE}</style></head><body>"
        + "".join(body)
        + "</body></html>\n"
    )
