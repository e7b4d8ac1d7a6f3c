"""Messages for people as stable codes with parameters.

Every reason the backend gives a person — degradation, zero results and their next step,
document, source and task errors, connection tests, validation problems, chat failures —
travels as a code from :data:`CATALOGUE` plus string parameters, beside the English sentence
that the CLI and the logs keep using. The GUI renders each code in the user's language
(``ui/i18n/messages.py``); the codes and their English templates are in ``contracts/catalogue.py``; an unknown code falls back to the English sentence.

A reason raised with its code — a :class:`Reason`, built from the code and its parameters where
the reason arises (the retrieval channels, zero results, rerank fallbacks) — is a ``str`` holding
the English sentence, so it is stored and logged as before, and it carries its code and
parameters to the response model, whose :func:`code_fields` validator takes them as they are.
Any other text (older sentences, stored reasons, foreign text) is read back at the contract
boundary by :func:`classify`, which matches the catalogue's English templates: a sentence outside
the catalogue travels with no code (and is caught by the GUI's "no English in the Chinese
screens" test).
"""

from __future__ import annotations

import re
import string
from functools import lru_cache
from typing import Any

from pydantic import Field, model_validator
from pydantic.alias_generators import to_camel

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.catalogue import CATALOGUE

#: Parameters whose value may itself be a catalogue sentence.
NESTED_PARAMS = frozenset({"reason", "reasons", "error", "detail", "hint"})

Params = dict[str, str]

#: What some parameters may hold (others: any text).
PARAM_PATTERNS = {
    "channel": "fts|cjk|vector|graph",
    "status": r"\d{3}",
    "seconds": r"\d+",
    "count": r"\d+",
    "limit": r"\d+",
    "got": r"\d+",
    "expected": r"\d+",
    "left": r"\d+",
    "best": r"[0-9.]+",
    "floor": r"[0-9.e+-]+",
    "page": r"\d+",
    "hint": "|".join(re.escape(v) for k, v in CATALOGUE.items() if k.startswith("hint.")),
}


class CodedMessage(ContractModel):
    """A message for a person: a catalogue code and its parameters (all strings)."""

    code: str
    params: Params = Field(default_factory=dict)

    def english(self) -> str:
        return english(self.code, self.params)


class Reason(str):
    """A reason for a person raised with its code: the English sentence of ``code`` filled with
    ``params`` (each turned into a string), carrying the code and parameters beside it.

    ``Reason("zero.filtered", count=3)`` equals the string "3 vector matches were below …"."""

    code: str
    params: Params

    def __new__(cls, code: str, **params: object) -> Reason:
        if code not in CATALOGUE:
            raise ValueError(f"unknown message code: {code}")
        values = {name: str(params[name]) for name in placeholders(CATALOGUE[code])}
        reason = super().__new__(cls, english(code, values))
        reason.code = code
        reason.params = values
        return reason

    def coded(self) -> CodedMessage:
        return CodedMessage(code=self.code, params=dict(self.params))


def coded_of(text: str | None) -> CodedMessage | None:
    """The code of a :class:`Reason` as it was raised; for any other text, :func:`classify`."""
    if isinstance(text, Reason):
        return text.coded()
    return classify(text)


def placeholders(template: str) -> list[str]:
    return re.findall(r"{(\w+)}", template)


#: The format spec of an English plural: ``{n:plural:document|documents}`` reads "document"
#: when ``n`` is 1 and "documents" otherwise (the count itself is written ``{n}`` beside it).
PLURAL = "plural:"
#: A plural in a template: the count's name and the two forms.
PLURAL_FIELD = re.compile(r"{(\w+):plural:([^|}]*)\|([^}]*)}")


class _Formatter(string.Formatter):
    """``str.format`` that also fills English plurals (see :data:`PLURAL`)."""

    def format_field(self, value: Any, format_spec: str) -> Any:
        if format_spec.startswith(PLURAL):
            one, _, many = format_spec[len(PLURAL) :].partition("|")
            return one if str(value).strip() in ("1", "1.0") else many
        return super().format_field(value, format_spec)


_FORMATTER = _Formatter()


def fill(template: str, **values: Any) -> str:
    """``template.format(**values)``, plurals included: "{n} {n:plural:time|times}"."""
    return _FORMATTER.format(template, **values)


def english(code: str, params: dict[str, Any] | None = None) -> str:
    """The English sentence of ``code`` (CLI, logs); unknown codes read as the code itself."""
    template = CATALOGUE.get(code)
    if template is None:
        return code
    values = {name: str((params or {}).get(name, "")) for name in placeholders(template)}
    return fill(template, **values)


@lru_cache(maxsize=1)
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    compiled = []
    for code, template in CATALOGUE.items():
        pattern = ""
        for part in re.split(r"({\w+}|{\w+:plural:[^}]*})", template):
            plural = PLURAL_FIELD.fullmatch(part)
            if plural is not None:
                pattern += f"(?:{re.escape(plural[2])}|{re.escape(plural[3])})"
            elif re.fullmatch(r"{\w+}", part):
                name = part[1:-1]
                pattern += f"(?P<{name}>{PARAM_PATTERNS.get(name, '.+?')})"
            else:
                pattern += re.escape(part)
        compiled.append((code, re.compile(pattern, re.DOTALL)))
    # Literal sentences first, then the most specific templates (more fixed text) first.
    compiled.sort(key=lambda item: -len(re.sub(r"{\w+(?::plural:[^}]*)?}", "", CATALOGUE[item[0]])))
    return compiled


def classify(text: str | None) -> CodedMessage | None:
    """The code and parameters of a catalogue sentence; None for any other text."""
    if not text:
        return None
    text = text.strip()
    for code, pattern in _patterns():
        match = pattern.fullmatch(text)
        if match is not None:
            return CodedMessage(code=code, params={k: v for k, v in match.groupdict().items()})
    return None


def code_fields(*names: str) -> Any:
    """A before-validator for a contract model: for each text field ``name``, fill
    ``{name}_code`` and ``{name}_params`` unless they were given — from a :class:`Reason` as it
    was raised, or by :func:`classify` for a catalogue sentence. Use as
    ``fill_codes = code_fields("reason")`` beside the two fields."""

    def fill(cls: type[Any], data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for name in names:
            key = name if name in data else to_camel(name)
            text = data.get(key)
            if isinstance(text, Reason):
                data[key] = str(text)  # the model keeps a plain sentence
            code_key, params_key = f"{name}_code", f"{name}_params"
            if code_key in data or to_camel(code_key) in data:
                continue
            coded = coded_of(text)
            if coded is not None:
                data[code_key] = coded.code
                data[params_key] = coded.params
        return data

    return model_validator(mode="before")(classmethod(fill))  # type: ignore[arg-type]
