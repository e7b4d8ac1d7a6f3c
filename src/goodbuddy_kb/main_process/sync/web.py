"""Fetching a web page in the backend: http(s) only (also after redirects), bounded in size
(decoded, counted on the stream) and in total time (``netio``). Errors become readable parse
failures; a cancel ends the fetch at once."""

from __future__ import annotations

import codecs
from urllib.parse import urljoin, urlsplit

import httpx

from goodbuddy_kb.main_process import netio
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.parsing import MAX_FILE_BYTES, ParseError, office, text
from goodbuddy_kb.main_process.parsing import html as html_parser
from goodbuddy_kb.main_process.parsing.encoding import has_bom

MAX_PAGE_BYTES = 10 * 1024 * 1024
TIMEOUT_S = 20.0
MAX_REDIRECTS = 5

PARSER_BY_TYPE = {
    "text/html": html_parser.parse_html,
    "application/xhtml+xml": html_parser.parse_html,
    "text/plain": text.parse_text,
    "text/markdown": text.parse_text,
    "application/pdf": office.parse_pdf,
}


def with_declared_charset(body: bytes, content_type: str) -> bytes:
    """A text body in the charset its ``Content-Type`` declares, re-encoded as UTF-8 behind a
    byte-order mark: the header outranks the page's own ``<meta charset>`` (as in browsers),
    and the parsers take a BOM before anything else. Unchanged without a usable declaration
    and for UTF-8 (the bytes stored stay the bytes served)."""
    charset = ""
    for param in content_type.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            charset = value.strip().strip("\"'")
    if not charset or has_bom(body):
        return body
    try:
        if codecs.lookup(charset).name in ("utf-8", "ascii"):
            return body  # read as UTF-8 anyway, unless a page's meta says otherwise
        return codecs.BOM_UTF8 + body.decode(charset).encode("utf-8")
    except (LookupError, UnicodeDecodeError):
        return body  # a wrong or unknown declaration: detection decides


def check_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ParseError(
            f"only http(s) addresses can be imported (got “{parts.scheme or url[:20]}”)"
        )
    return url


def fetch(
    url: str, timeout: float | None = None, cancel: CancelToken | None = None
) -> tuple[bytes, str]:
    """The body and media type of ``url``, following at most five http(s) redirects, all within
    one total deadline (connect, headers, body); a cancel ends it at once."""
    timeout = timeout or TIMEOUT_S
    current = check_url(url)
    limit = min(MAX_PAGE_BYTES, MAX_FILE_BYTES)
    too_large = f"the page is larger than {MAX_PAGE_BYTES // 1048576} MB"
    with netio.deadline(timeout, cancel), netio.client(timeout) as client:
        for _hop in range(MAX_REDIRECTS + 1):
            try:
                with client.stream(
                    "GET", current, headers={"User-Agent": "GoodBuddyKB/0.1"}
                ) as response:
                    if response.is_redirect:
                        target = urljoin(current, response.headers.get("location", ""))
                        current = check_url(target)
                        continue
                    if response.status_code >= 400:
                        raise ParseError(f"the server answered HTTP {response.status_code}")
                    body = netio.read_body(response, limit)
                    content_type = response.headers.get("content-type", "")
                    media = content_type.split(";")[0].strip().lower()
                    return with_declared_charset(body, content_type), media
            except netio.BodyTooLarge:
                raise ParseError(too_large) from None
            except netio.BadEncoding as exc:
                raise ParseError(f"the page could not be read ({exc})") from None
            except httpx.InvalidURL as exc:
                raise ParseError(
                    "only http(s) addresses can be imported (a redirect led elsewhere)"
                ) from exc
            except httpx.TimeoutException as exc:
                raise ParseError(f"the page did not answer within {timeout:.0f} s") from exc
            except httpx.HTTPError as exc:
                if cancel is not None:
                    cancel.check()
                raise ParseError(
                    f"the page could not be fetched ({exc.__class__.__name__})"
                ) from exc
    raise ParseError("too many redirects")
