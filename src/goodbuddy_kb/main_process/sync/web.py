"""Fetching a web page in the backend: http(s) only (also after redirects), bounded in size and
time. Errors become readable parse failures."""

from __future__ import annotations

import time
from urllib.parse import urljoin, urlsplit

import httpx

from goodbuddy_kb.main_process.parsing import MAX_FILE_BYTES, ParseError, office, text
from goodbuddy_kb.main_process.parsing import html as html_parser

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


def check_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ParseError(
            f"only http(s) addresses can be imported (got “{parts.scheme or url[:20]}”)"
        )
    return url


def fetch(url: str, timeout: float | None = None) -> tuple[bytes, str]:
    """The body and media type of ``url``, following at most five http(s) redirects."""
    timeout = timeout or TIMEOUT_S
    deadline = time.monotonic() + timeout
    current = check_url(url)
    with httpx.Client(
        follow_redirects=False, timeout=httpx.Timeout(timeout), trust_env=False
    ) as client:
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
                    declared = int(response.headers.get("content-length") or 0)
                    if declared > MAX_PAGE_BYTES:
                        raise ParseError(f"the page is larger than {MAX_PAGE_BYTES // 1048576} MB")
                    body = bytearray()
                    for chunk in response.iter_bytes():
                        body += chunk
                        if len(body) > min(MAX_PAGE_BYTES, MAX_FILE_BYTES):
                            raise ParseError(
                                f"the page is larger than {MAX_PAGE_BYTES // 1048576} MB"
                            )
                        if time.monotonic() > deadline:
                            raise ParseError(f"the page did not arrive within {timeout:.0f} s")
                    media = response.headers.get("content-type", "").split(";")[0].strip().lower()
                    return bytes(body), media
            except httpx.InvalidURL as exc:
                raise ParseError(
                    "only http(s) addresses can be imported (a redirect led elsewhere)"
                ) from exc
            except httpx.TimeoutException as exc:
                raise ParseError(f"the page did not answer within {timeout:.0f} s") from exc
            except httpx.HTTPError as exc:
                raise ParseError(
                    f"the page could not be fetched ({exc.__class__.__name__})"
                ) from exc
    raise ParseError("too many redirects")
