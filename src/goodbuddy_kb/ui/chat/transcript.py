"""The chat transcript: how the turns of a conversation read as HTML (who spoke, whether a
search happened or was degraded, citation markers [n] as links to their own answer's citation
n, under each answer its actions — show its sources, copy it with its sources, and on the last
one regenerate — a streaming reply with its cursor), and the browser that shows them, following
a streaming answer unless the reader scrolled up."""

from __future__ import annotations

import html
import re
import uuid
from dataclasses import dataclass, replace

from pydantic import ValidationError

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.i18n import language, tr
from goodbuddy_kb.ui.i18n.messages import say_field
from goodbuddy_kb.ui.widgets.table_text import has_table, text_html


def marker_url(message_id: str, number: int) -> str:
    """The link of marker [number] in answer ``message_id``: that answer's citation number."""
    return f"cite:{message_id}/{number}"


def parse_marker(url: str) -> tuple[str, int] | None:
    """(answer id, citation number) of a marker link; None for any other link."""
    match = re.fullmatch(r"cite:([0-9A-Za-z_-]+)/(\d{1,3})", url)
    return (match.group(1), int(match.group(2))) if match else None


def action_url(action: str, message_id: str) -> str:
    """The link of an action under an answer: its sources, copy it, regenerate it."""
    return f"{action}:{message_id}"


def parse_action(url: str) -> tuple[str, str] | None:
    """(action, answer id) of an answer's action link; None for any other link."""
    match = re.fullmatch(r"(sources|copy|regenerate):([0-9A-Za-z_-]+)", url)
    return (match.group(1), match.group(2)) if match else None


def actions_html(msg: c.Message, last: bool) -> str:
    """The links under an answer: "Sources (n)" and "Copy with sources" ("Copy" when it has
    none), and "Regenerate" on the last one."""
    links = [(tr("chat.answer.sources", n=len(msg.citations)), "sources")] if msg.citations else []
    if msg.content.strip():  # a reply that failed before any text has nothing to copy
        links.append(
            (tr("chat.answer.copy" if msg.citations else "chat.answer.copy_plain"), "copy")
        )
    if last:
        links.append((tr("chat.answer.regenerate"), "regenerate"))
    return " · ".join(
        f"<a href='{action_url(action, msg.id)}'>{html.escape(text)}</a>" for text, action in links
    )


def link_markers(body: str, message_id: str, numbers: set[int]) -> str:
    """Citation markers [n] in escaped text become links to this answer's citation n; a marker
    with no such citation stays plain text."""
    return c.CITATION_MARKER.sub(
        lambda m: (
            f"<a href='{marker_url(message_id, int(m.group(1)))}'>[{m.group(1)}]</a>"
            if int(m.group(1)) in numbers
            else m.group(0)
        ),
        body,
    )


def status_text(message: c.Message) -> str:
    """Whether this answer searched first, searched in vain, degraded, or let the model search."""
    state = message.retrieval
    if state is None:
        return ""
    if state.fallback:  # the model failed before it searched: the app searched for it
        status = state.status if state.status != "none" else "searched_empty"
        return tr(f"chat.status.fallback_{status}", reason=say_field(state, "reason"))
    if state.mode == "always":
        if state.status == "degraded":
            said = tr("chat.status.degraded", reason=say_field(state, "reason"))
        elif state.status == "none":  # nothing searched first: say why (an empty scope)
            said = say_field(state, "reason") if state.reason else ""
        else:
            said = tr(f"chat.status.{state.status}")
        if said and state.parts:
            # what they added, not only how many ran (a helper read "2 more searches" as every
            # part answered, beside one passage)
            found = state.parts_found
            key = "chat.status.parts" if found else "chat.status.parts_none"
            said = tr(key, status=said, n=state.parts, found=found)
        # the search first is one, its parts more; the model may have searched again
        more = state.searches - 1 - state.parts
        if said and more > 0:
            said = tr("chat.status.more", status=said, n=more)
        return said
    if not state.searches:
        # the model answered without searching: its answer was not checked against the
        # libraries (its own "[1]" then points at nothing, and nothing said so)
        if state.reason:  # its search was refused (outside the scope): said, not "none"
            return say_field(state, "reason")
        return tr("chat.status.tool_none") if message.state == "complete" else ""
    if state.status == "degraded":
        return tr("chat.status.tool_degraded", n=state.searches, reason=say_field(state, "reason"))
    return tr("chat.status.tool", n=state.searches)


def message_html(msg: c.Message, last: bool = False) -> str:
    """One turn: the speaker, the search badge, the text (markers linked), stopped/failed, and
    under an answer its actions (``last``: it is the conversation's last answer)."""
    who = tr("chat.you") if msg.role == "user" else tr("chat.assistant")
    note = status_text(msg)
    suffix = ""
    if msg.state == "stopped":
        suffix = " " + html.escape(tr("chat.stopped"))
    elif msg.state == "failed":
        # on a line of its own under an answer of evidence: after the last quoted passage it
        # read as part of that source (a helper's try)
        failed = html.escape(tr("chat.failed", reason=say_field(msg, "error").rstrip(".")))
        own_line = failed.removeprefix("— ").removeprefix("&mdash; ")
        suffix = f"<br><i>{own_line}</i>" if msg.content.strip() else " " + failed
    badge = f" <i>[{html.escape(note)}]</i>" if note else ""
    content = c.in_one_language(msg.content, language()) if msg.role == "assistant" else msg.content
    if language() == "zh" and msg.content == c.NO_CHAT_MODEL_NOTES[1]:
        # "Nothing was searched": the stored Chinese half lacks the English next step.
        content += tr("chat.auto_note.next")
    # A Markdown table (an answer's, or a cited sheet's rows) reads as a table.
    table = has_table(content)
    body = text_html(content) if table else html.escape(content).replace(chr(10), "<br>")
    if msg.role == "assistant":
        numbers = {x.number for x in msg.citations if x.number is not None}
        body = link_markers(body, msg.id, numbers) if numbers else body
        # a number the model made up: said, not just left as plain text (helpers' tries; also
        # when the searches gave it nothing at all)
        unknown = c.unknown_markers(content, msg.citations)
        if unknown and msg.state != "streaming":
            marks = " ".join(f"[{n}]" for n in unknown)
            body += (
                f"<br><small><i>{html.escape(tr('chat.unknown_markers', marks=marks))}</i></small>"
            )
    tag = "div" if table else "p"
    actions = ""
    if msg.role == "assistant" and msg.created_at:  # (stored: it can be copied, regenerated)
        actions = f"<br><small>{actions_html(msg, last)}</small>"
    # (a body with a table opens with a paragraph of its own: a line break before it left an
    # empty line between "Assistant" and the answer)
    lead = "" if table else "<br>"
    if table and body.startswith("<p>"):  # (nor the paragraph's own margin above it)
        body = "<p style='margin-top:0'>" + body.removeprefix("<p>")
    return f"<{tag}><b>{who}</b>{badge}{lead}{body}{suffix}{actions}</{tag}>"


def transcript_html(messages: list[c.Message], streaming: str | None, step: str = "") -> str:
    """The whole conversation; ``streaming`` is the reply arriving now (None when none is), and
    ``step`` where it is before its first words."""
    answers = [m for m in messages if m.role == "assistant"]
    final = answers[-1].id if answers and streaming is None else None
    parts = [message_html(msg, msg.id == final) for msg in messages]
    if streaming is not None:
        text = html.escape(streaming).replace(chr(10), "<br>")
        if not streaming and step:
            text = f"<i>{html.escape(step)}</i> "
        parts.append(f"<p><b>{tr('chat.assistant')}</b><br>{text}▍</p>")
    return "".join(parts)


def asked_now(conversation_id: str, text: str) -> c.Message:
    """A question just sent, shown until the backend's stored one replaces it."""
    return c.Message(
        id=uuid.uuid4().hex,
        conversation_id=conversation_id,
        role="user",
        content=text,
        state="complete",
        retrieval=None,
        citations=[],
        error=None,
        created_at="",
    )


@dataclass(frozen=True)
class Stream:
    """The reply arriving now: its words, where it is before them, and the passages its
    searches found so far (None until a search said)."""

    text: str = ""
    step: str = ""
    citations: list[c.Citation] | None = None


def next_stream(stream: Stream, params: dict[str, object]) -> Stream:
    """The reply after one notification: a step replaces the step (and the passages found),
    words add to the text (4–8 s showed only "Assistant" and a cursor while the app searched
    and the model thought, and the sources list stayed empty; a helper's try)."""
    try:
        delta = c.ChatDelta.model_validate(params)
    except ValidationError:
        return stream  # (a notification that broke its contract changes nothing shown)
    if delta.step == "searching":
        return replace(stream, step=tr("chat.step.searching"))
    if delta.step == "waiting":
        found = delta.passages
        citations = stream.citations if delta.citations is None else delta.citations
        if found is None:
            return replace(stream, step=tr("chat.step.waiting"), citations=citations)
        step = tr("chat.step.waiting_found", n=found) if found else tr("chat.step.waiting_none")
        return replace(stream, step=step, citations=citations)
    return replace(stream, text=stream.text + delta.delta)


class TranscriptView(QtWidgets.QTextBrowser):
    """Follows a streaming answer unless the reader scrolled up to read earlier turns; a
    redraw keeps the reader where they are. Links are never navigated (the view handles them)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self._follow = True
        self._keep: int | None = None
        bar = self.verticalScrollBar()
        # Only the reader's own scrolling (wheel, keys, the bar) decides whether to follow: a
        # value Qt set while laying the text out once stopped the following, and a reopened
        # conversation stayed at its top.
        bar.actionTriggered.connect(self._scrolled)
        bar.rangeChanged.connect(self._range_changed)

    def show_latest(self, text: str) -> None:
        """Show ``text`` at its end (a conversation reopened, a question just sent): follow it
        again even if the reader had scrolled up in what was shown before."""
        self._follow = True
        self.show_html(text)

    def show_html(self, text: str) -> None:
        bar = self.verticalScrollBar()
        self._keep = None if self._follow else bar.value()
        self.setHtml(text)
        bar.setValue(bar.maximum() if self._keep is None else self._keep)

    def held(self) -> int | None:
        """Where the reader scrolled to, or None while following the end."""
        return None if self._follow else self.verticalScrollBar().value()

    def hold(self, value: int) -> None:
        """Stay at ``value`` (where the reader was in the view this one replaces), however the
        text is laid out from now on; it opened at the end, the answer read gone from sight."""
        self._follow = False
        self._keep = value
        self.verticalScrollBar().setValue(value)

    def _scrolled(self, _action: int) -> None:
        """The reader scrolled (the bar's position is where the scroll goes)."""
        bar = self.verticalScrollBar()
        self._follow = bar.sliderPosition() >= bar.maximum() - 4
        self._keep = None

    def _range_changed(self, _minimum: int, maximum: int) -> None:
        """The text grew (laid out now or later): stay at the bottom, or where the reader is."""
        bar = self.verticalScrollBar()
        bar.setValue(maximum if self._follow else (self._keep or bar.value()))
