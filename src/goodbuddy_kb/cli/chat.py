"""`goodbuddy-kb chat ask|list|show|export|rename|delete`: the chat, through the same bridge as
the window (ID is a conversation id, or an unambiguous start of one). ``ask`` puts a question to
the chat model set up with ``model chat`` (without one, the answer lists the passages found),
searching the libraries given (default: every library, as a new conversation in the window
does), and prints the answer with its sources; ``--conversation`` continues one."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.cli.output import EXIT_ERROR, confirm, emit
from goodbuddy_kb.cli.resolve import resolve_library
from goodbuddy_kb.contracts import chat as ch
from goodbuddy_kb.contracts import conversations as cv
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts.errors import InvalidRequestError, NotFoundError
from goodbuddy_kb.contracts.limits import MAX_LIBRARIES_PER_REQUEST
from goodbuddy_kb.contracts.methods import (
    CHAT_SEND,
    CONVERSATION_CREATE,
    CONVERSATION_DELETE,
    CONVERSATION_EXPORT,
    CONVERSATION_LIST,
    CONVERSATION_RENAME,
    LIBRARY_LIST,
    MESSAGE_COPY,
    MESSAGES_LIST,
)

#: Most conversations one listing returns (the method's own bound).
LIST_LIMIT = 1_000


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "chat", help="ask a question; list, show, export, rename or delete conversations"
    )
    cmds = p.add_subparsers(dest="action", required=True)
    ask = cmds.add_parser(
        "ask", parents=[common], help="ask the chat model, with evidence from your libraries"
    )
    ask.add_argument("question", metavar="QUESTION")
    ask.add_argument(
        "--library",
        dest="libraries",
        action="append",
        default=[],
        metavar="LIB",
        help=f"search this library (repeat for more, at most {MAX_LIBRARIES_PER_REQUEST});"
        " default: every library, or a continued conversation's own",
    )
    ask.add_argument(
        "--mode",
        choices=("always", "auto"),
        default="always",
        help="always: search first and give the model what was found (default); auto: the"
        " model decides whether to search",
    )
    ask.add_argument("--conversation", metavar="ID", help="continue this conversation")
    ls = cmds.add_parser("list", parents=[common], help="conversations, pinned and newest first")
    ls.add_argument("--query", default="", help="only those whose title or messages match")
    show = cmds.add_parser("show", parents=[common], help="a conversation with its sources")
    show.add_argument("conversation", metavar="ID")
    ex = cmds.add_parser("export", parents=[common], help="write a conversation to a file")
    ex.add_argument("conversation", metavar="ID")
    ex.add_argument("--format", choices=("markdown", "html"), default="markdown")
    ex.add_argument("--out", required=True, metavar="PATH")
    ex.add_argument("--overwrite", action="store_true", help="replace PATH if it exists")
    rn = cmds.add_parser("rename", parents=[common], help="give a conversation a title")
    rn.add_argument("conversation", metavar="ID")
    rn.add_argument("title", metavar="TITLE")
    rm = cmds.add_parser("delete", parents=[common], help="delete a conversation")
    rm.add_argument("conversation", metavar="ID")
    rm.add_argument("--yes", action="store_true", help="do not ask")


def resolve_conversation(session: Session, ref: str) -> ch.Conversation:
    """A conversation by its id, or by the start of one when only one conversation has it."""
    ref = ref.strip().lower()
    if not ref:
        raise InvalidRequestError("give a conversation id")
    found = [
        x
        for x in session.client.call(
            CONVERSATION_LIST, ch.ConversationListRequest(limit=LIST_LIMIT)
        ).conversations
        if x.id.startswith(ref)
    ]
    if len(found) == 1:
        return found[0]
    if found:
        raise InvalidRequestError(f"“{ref}” starts {len(found)} conversation ids; give more of it")
    raise NotFoundError(f"no conversation with id “{ref}”")


def _row(x: ch.Conversation) -> str:
    pin = "* " if x.pinned else "  "
    line = (
        f"{pin}{x.id[:8]}  {x.updated_at[:16].replace('T', ' ')}  {x.message_count:>3}  {x.title}"
    )
    return line + (f"\n            … {x.snippet}" if x.snippet else "")


def _show(args: argparse.Namespace, session: Session, conversation: ch.Conversation) -> int:
    messages = session.client.call(
        MESSAGES_LIST, ch.MessagesListRequest(conversation_id=conversation.id)
    ).messages
    lines = [f"{conversation.title}  ({conversation.id})", ""]
    for m in messages:
        if m.role == "user":
            lines += [f"> {m.content}", ""]
        else:
            copy = cv.MessageCopyRequest(message_id=m.id, format="text")
            lines += [session.client.call(MESSAGE_COPY, copy).text, ""]
    emit(
        args,
        {"conversation": conversation.to_wire(), "messages": [m.to_wire() for m in messages]},
        "\n".join(lines).rstrip(),
    )
    return 0


#: The longest a question may take: the longest chat timeout the settings allow, and the search.
ASK_TIMEOUT_S = 660.0


def _ask(args: argparse.Namespace, session: Session) -> int:
    call = session.client.call
    conversation = resolve_conversation(session, args.conversation) if args.conversation else None
    if args.libraries:
        ids = list(dict.fromkeys(resolve_library(session, ref).id for ref in args.libraries))
    else:
        every = [x.id for x in call(LIBRARY_LIST, lib.LibraryListRequest()).libraries]
        kept = conversation.scope if conversation is not None else None
        # a conversation continued searches what it searched (its libraries still there)
        ids = [x for x in every if x in kept.library_ids] if kept is not None else every
        ids = ids[:MAX_LIBRARIES_PER_REQUEST]
    if conversation is None:
        scope = ch.ChatScope(library_ids=ids, known_library_ids=ids, mode=args.mode)
        conversation = call(CONVERSATION_CREATE, ch.ConversationCreateRequest(scope=scope))
    request = ch.SendRequest(
        conversation_id=conversation.id, text=args.question, library_ids=ids, mode=args.mode
    )
    sent = call(CHAT_SEND, request, timeout=ASK_TIMEOUT_S)
    answer = sent.assistant_message
    copy = cv.MessageCopyRequest(message_id=answer.id, format="text")
    text = call(MESSAGE_COPY, copy).text.rstrip()
    if answer.state == "failed" and (answer.error or "") not in text:
        # said once: the copied answer already ends "(failed: …)" when it holds the reason
        text = f"{text}\n\nthe answer failed: {answer.error}".strip()
    more = f"(conversation {conversation.id}: continue with --conversation {conversation.id[:8]})"
    emit(args, {"conversationId": conversation.id, **sent.to_wire()}, f"{text}\n\n{more}")
    return EXIT_ERROR if answer.state == "failed" else 0


def cmd_chat(args: argparse.Namespace, session: Session) -> int:
    if args.action == "ask":
        return _ask(args, session)
    if args.action == "list":
        request = ch.ConversationListRequest(query=args.query, limit=LIST_LIMIT)
        found = session.client.call(CONVERSATION_LIST, request).conversations
        text = "\n".join(_row(x) for x in found) or "no conversations"
        emit(args, {"conversations": [x.to_wire() for x in found]}, text)
        return 0
    conversation = resolve_conversation(session, args.conversation)
    if args.action == "show":
        return _show(args, session, conversation)
    if args.action == "export":
        target = Path(args.out).expanduser().absolute()
        export = cv.ConversationExportRequest(
            conversation_id=conversation.id,
            format=args.format,
            path=str(target),
            overwrite=args.overwrite,
        )
        done = session.client.call(CONVERSATION_EXPORT, export)
        emit(args, done.to_wire(), f"wrote {done.path} ({done.message_count} messages)")
        return 0
    if args.action == "rename":
        renamed = session.client.call(
            CONVERSATION_RENAME,
            ch.ConversationRenameRequest(conversation_id=conversation.id, title=args.title),
        )
        emit(args, renamed.to_wire(), f"renamed to “{renamed.title}”")
        return 0
    if not args.yes and not confirm(f"delete “{conversation.title}”? [y/N] "):
        return EXIT_ERROR
    session.client.call(
        CONVERSATION_DELETE, ch.ConversationDeleteRequest(conversation_id=conversation.id)
    )
    emit(args, {"conversationId": conversation.id}, f"deleted “{conversation.title}”")
    return 0
