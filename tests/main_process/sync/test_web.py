"""Web import against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import pytest

from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.parsing import ParseError
from goodbuddy_kb.main_process.storage import documents, sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.sync import web
from goodbuddy_kb.main_process.sync.engine import sync_source
from tests.servers.httpserver import Reply, serve

PAGE = (
    "<html><head><title>Leave policy</title><style>p{}</style></head><body>"
    "<header>Site header</header><article><h1>Leave</h1><p>年假需要提前五个工作日申请。</p>"
    "</article><footer>© footer</footer></body></html>"
).encode()


@pytest.mark.integration
def test_page_is_fetched_and_main_text_extracted(pool: ConnectionPool, library_id: str) -> None:
    with serve({"/leave": Reply(body=PAGE)}) as base:
        src = sources.add(pool.get(), library_id, "web", f"{base}/leave", [], [], False)
        report = sync_source(pool.get(), src, CancelToken())
    assert report.processed == 1 and report.failed == 0
    docs, _ = documents.page(pool.get(), library_id, 0, 5, "all")
    assert docs[0].title == "Leave policy"
    content = pool.get().execute("SELECT group_concat(content) FROM chunks").fetchone()[0]
    assert "年假" in content and "Site header" not in content and "footer" not in content


@pytest.mark.integration
@pytest.mark.parametrize(
    ("route", "reason"),
    [
        (Reply(404, b"gone", "text/plain"), "HTTP 404"),
        (Reply(500, b"boom", "text/plain"), "HTTP 500"),
        (Reply(body=b"PK\x03\x04", content_type="application/zip"), "unsupported content type"),
        (Reply(body=b"x" * (11 * 1024 * 1024), content_type="text/plain"), "larger than 10 MB"),
        (Reply(302, b"", headers={"Location": "file:///etc/passwd"}), "only http(s)"),
        (Reply(302, b"", headers={"Location": "javascript:alert(1)"}), "only http(s)"),
        (Reply(body=PAGE, delay_s=3.0), "did not answer within"),
    ],
)
def test_bad_pages_fail_with_a_readable_reason(
    pool: ConnectionPool,
    library_id: str,
    monkeypatch: pytest.MonkeyPatch,
    route: Reply,
    reason: str,
) -> None:
    monkeypatch.setattr(web, "TIMEOUT_S", 1.0)
    with serve({"/page": route}) as base:
        src = sources.add(pool.get(), library_id, "web", f"{base}/page", [], [], False)
        report = sync_source(pool.get(), src, CancelToken())
    assert report.failed == 1
    docs, _ = documents.page(pool.get(), library_id, 0, 5, "failed")
    assert reason in (docs[0].error or "")
    # the source is unavailable, and says why (it read "✓ OK" beside its failed page)
    (listed,) = sources.describe(pool.get(), library_id)
    assert listed.state == "unavailable" and reason in (listed.state_reason or "")


@pytest.mark.integration
def test_redirect_within_http_is_followed() -> None:
    with serve(
        {"/old": Reply(301, b"", headers={"Location": "/new"}), "/new": Reply(body=PAGE)}
    ) as base:
        body, media = web.fetch(f"{base}/old")
    assert body == PAGE and media == "text/html"


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "javascript:alert(1)", "ftp://x/y", "http://"]
)
def test_only_http_urls_are_accepted(url: str) -> None:
    with pytest.raises(ParseError):
        web.check_url(url)
