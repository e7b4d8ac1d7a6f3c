"""Lexical channels over a real migrated database with synced documents."""

from __future__ import annotations

import importlib
import itertools
from pathlib import Path

import pytest

from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.chunking.drafts import checksum
from goodbuddy_kb.main_process.lexical import build_query, search, vocab
from goodbuddy_kb.main_process.retrieval import rerank
from goodbuddy_kb.main_process.retrieval.candidate import Candidate
from goodbuddy_kb.main_process.storage import chunks, libraries, sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool, transaction
from goodbuddy_kb.main_process.sync.engine import sync_source

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "chunking"


@pytest.fixture
def library(pool: ConnectionPool, tmp_path: Path) -> str:
    folder = tmp_path / "kb"
    folder.mkdir()
    for name in ("policy_zh.md", "manual_en.md"):
        (folder / name).write_bytes((FIXTURES / name).read_bytes())
    (folder / "paths.md").write_text(
        "# Code notes\n\nThe entry point is src/app/main.py and it calls getUserById.\n\n"
        "Version v2.3.1 fixed GB-2000 compliance and error ERR_42.\n",
        encoding="utf-8",
    )
    conn = pool.get()
    library_id = libraries.create(conn, "KB").id
    sync_source(
        conn, sources.add(conn, library_id, "folder", str(folder), [], [], False), CancelToken()
    )
    return library_id


def top(pool: ConnectionPool, library_id: str, channel: str, text: str, k: int = 24) -> list[str]:
    hits = search(pool.get(), channel, [library_id], build_query(text), k)  # type: ignore[arg-type]
    return [
        pool.get().execute("SELECT content FROM chunks WHERE id = ?", (h.chunk_id,)).fetchone()[0]
        for h in hits
    ]


def test_natural_chinese_question_finds_the_section(pool: ConnectionPool, library: str) -> None:
    results = top(pool, library, "cjk", "出差住宿一线城市每晚最多能报多少钱？")
    assert "六百元" in results[0]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("GB-2000", "GB-2000"),
        ("v2.3.1", "v2.3.1"),
        ("src/app/main.py", "src/app/main.py"),
        ("getUserById", "getUserById"),
        ("ERR_42", "ERR_42"),
        ("ERR_RATE_42 是什么意思", "ERR_RATE_42"),
        ("FIN-2000 报销系统", "FIN-2000"),
    ],
)
def test_identifiers_are_found_first(
    pool: ConnectionPool, library: str, query: str, expected: str
) -> None:
    assert expected in top(pool, library, "fts", query)[0]


def test_exact_compound_outranks_scattered_words(pool: ConnectionPool, library: str) -> None:
    hits = search(pool.get(), "fts", [library], build_query("ERR_42"), 24)
    assert hits[0].features.exact


def test_a_stem_finds_other_word_forms_but_the_exact_word_ranks_first(
    pool: ConnectionPool, tmp_path: Path
) -> None:
    folder = tmp_path / "forms"
    folder.mkdir()
    (folder / "a.md").write_text("The travel policy covers hotels.", encoding="utf-8")
    (folder / "b.md").write_text("Our travel policies cover hotels.", encoding="utf-8")
    (folder / "c.md").write_text("Meals are not covered.", encoding="utf-8")
    conn = pool.get()
    library_id = libraries.create(conn, "Forms").id
    sync_source(
        conn, sources.add(conn, library_id, "folder", str(folder), [], [], False), CancelToken()
    )
    for query, first in (("travel policies", "policies"), ("travel policy", "policy covers")):
        found = top(pool, library_id, "fts", query)
        assert len(found) == 2 and first in found[0]


def test_same_query_same_order_ties_by_chunk_id(pool: ConnectionPool, library: str) -> None:
    first = search(pool.get(), "cjk", [library], build_query("员工"), 24)
    assert first == search(pool.get(), "cjk", [library], build_query("员工"), 24)
    for a, b in itertools.pairwise(first):
        assert (-a.score, a.chunk_id) <= (-b.score, b.chunk_id)


def test_disabled_edited_and_deleted_chunks_follow_in_both_tables(
    pool: ConnectionPool, library: str
) -> None:
    conn = pool.get()
    hit = search(conn, "cjk", [library], build_query("婚假三天"), 1)[0]
    chunks.set_enabled(conn, hit.chunk_id, False)
    assert hit.chunk_id not in [
        h.chunk_id for h in search(conn, "cjk", [library], build_query("婚假三天"), 24)
    ]
    chunks.set_enabled(conn, hit.chunk_id, True)
    assert search(conn, "cjk", [library], build_query("婚假三天"), 1)[0].chunk_id == hit.chunk_id
    chunks.edit_content(
        conn,
        hit.chunk_id,
        "改写后的内容：育儿假 Parental leave",
        "改写后的内容：育儿假 Parental leave",
        checksum("x"),
    )
    assert search(conn, "cjk", [library], build_query("育儿假"), 1)[0].chunk_id == hit.chunk_id
    assert search(conn, "fts", [library], build_query("parental"), 1)[0].chunk_id == hit.chunk_id
    assert not [
        h
        for h in search(conn, "cjk", [library], build_query("登记结婚"), 24)
        if h.chunk_id == hit.chunk_id
    ]
    # the old text is gone, but its heading (“2.3 婚假与产假”) still counts in matching
    assert hit.chunk_id in [
        h.chunk_id for h in search(conn, "cjk", [library], build_query("婚假"), 24)
    ]
    conn.execute("DELETE FROM chunks WHERE id = ?", (hit.chunk_id,))
    assert search(conn, "cjk", [library], build_query("育儿假"), 24) == []


def test_parents_never_appear(pool: ConnectionPool, tmp_path: Path) -> None:
    conn = pool.get()
    library_id = libraries.create(conn, "PC").id
    libraries.update_settings(
        conn, library_id, None, KnowledgeChunkingSettings(mode="parent-child")
    )
    folder = tmp_path / "pc"
    folder.mkdir()
    (folder / "policy.md").write_bytes((FIXTURES / "policy_zh.md").read_bytes())
    sync_source(
        conn, sources.add(conn, library_id, "folder", str(folder), [], [], False), CancelToken()
    )
    roles = {r[0] for r in conn.execute("SELECT role FROM chunks")}
    assert roles == {"parent", "child"}
    for text in ("员工", "年假", "报销"):
        for h in search(conn, "cjk", [library_id], build_query(text), 50):
            role = conn.execute("SELECT role FROM chunks WHERE id = ?", (h.chunk_id,)).fetchone()[0]
            assert role == "child"


def test_other_libraries_are_not_searched(pool: ConnectionPool, library: str) -> None:
    other = libraries.create(pool.get(), "Empty").id
    assert search(pool.get(), "cjk", [other], build_query("年假"), 24) == []
    assert search(pool.get(), "cjk", [library], build_query("年假"), 24)


@pytest.mark.parametrize("pool_size", [1, 3, 24])
def test_ranking_the_match_first_gives_the_joined_querys_candidates(
    pool: ConnectionPool,
    library: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pool_size: int,
) -> None:
    """Candidates read page by page from the ranked MATCH are exactly those of one joined query,
    with other libraries' chunks, disabled chunks and parents among the matches."""
    import importlib

    search_module = importlib.import_module("goodbuddy_kb.main_process.lexical.search")

    conn = pool.get()
    other = libraries.create(conn, "Other").id
    libraries.update_settings(conn, other, None, KnowledgeChunkingSettings(mode="parent-child"))
    folder = tmp_path / "other"
    folder.mkdir()
    for name in ("policy_zh.md", "manual_en.md"):
        (folder / name).write_bytes((FIXTURES / name).read_bytes())
    sync_source(conn, sources.add(conn, other, "folder", str(folder), [], [], False), CancelToken())
    for (chunk_id,) in conn.execute(
        "SELECT id FROM chunks WHERE library_id = ? AND ordinal % 3 = 1", (library,)
    ).fetchall():
        chunks.set_enabled(conn, chunk_id, False)
    queries = ("年假", "员工 报销", "gateway TLS", "请假 审批 流程", "the")

    def ranked(library_ids: list[str]) -> list[list[tuple[str, float, float]]]:
        out = []
        for text, channel in itertools.product(queries, ("fts", "cjk")):
            hits = search(conn, channel, library_ids, build_query(text), pool_size)  # type: ignore[arg-type]
            out.append([(h.chunk_id, h.bm25, h.score) for h in hits])
        return out

    for library_ids in ([library], [other], [library, other]):
        paged = ranked(library_ids)
        monkeypatch.setattr(search_module, "MIN_PAGE", 1)  # pages of 2: the second page is read
        small_pages = ranked(library_ids)
        monkeypatch.setattr(search_module, "PAGES", 0)  # straight to the joined query
        joined = ranked(library_ids)
        monkeypatch.undo()
        assert paged == small_pages == joined
        assert any(paged)


def test_term_weights_rank_rare_words_above_common_ones(pool: ConnectionPool, library: str) -> None:
    """The idf the relevance weighs a result's query words by, read from the index's own
    vocabularies: a word the libraries do not hold at all weighs the most, and a result that
    holds only the common words of a question covers little of its weight."""
    conn = pool.get()
    query = build_query("年假 审批 quantum entry point")
    weights = vocab.term_weights(conn, query)
    assert set(weights) == {*query.cjk_terms, *query.latin_terms}
    assert weights["quantum"] > weights["entry"] > 0  # absent > present in one chunk
    assert weights["年假"] > 0
    holder = {t for t in query.latin_terms if t != "quantum"} | set(query.cjk_terms)
    assert 0 < rerank.weighted_coverage(query, holder, weights) < 1
    assert rerank.weighted_coverage(query, {*query.cjk_terms, *query.latin_terms}, weights) == 1


def test_term_weights_follow_the_chunk_count_after_a_write(
    pool: ConnectionPool, library: str
) -> None:
    """The chunk count behind the idf is kept between queries, and a write that changes it
    (chunks deleted, here) is seen by the next query, from any connection."""
    conn = pool.get()
    query = build_query("quantum")
    (n,) = conn.execute("SELECT COUNT(*) FROM chunks WHERE role != 'parent'").fetchone()
    assert vocab.term_weights(conn, query)["quantum"] == pytest.approx(vocab.idf(n, 0))
    with transaction(conn):
        conn.execute("DELETE FROM chunks WHERE seq IN (SELECT seq FROM chunks LIMIT 3)")
    fresh = vocab.term_weights(pool.get(), query)["quantum"]
    assert fresh == pytest.approx(vocab.idf(n - 3, 0))
    assert fresh < vocab.idf(n, 0)


def test_a_large_library_matches_the_rarest_terms_within_the_budget(
    pool: ConnectionPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above LARGE_LIBRARY_CHUNKS a query's MATCH keeps its rarest terms until their rows reach
    MATCH_BUDGET (the common rest counts only in the rescoring); below, it is the whole query."""
    search_module = importlib.import_module("goodbuddy_kb.main_process.lexical.search")
    folder = tmp_path / "notes"
    folder.mkdir()
    for i in range(8):  # 公司 and 规定 everywhere, 出差住宿 in one note
        (folder / f"n{i}.md").write_text(f"# 第{i}号\n\n公司规定第{i}条：按时提交周报。\n", "utf-8")
    (folder / "trip.md").write_text("# 差旅\n\n公司规定：出差住宿一线城市每晚六百元。\n", "utf-8")
    conn = pool.get()
    library_id = libraries.create(conn, "Notes").id
    sync_source(
        conn, sources.add(conn, library_id, "folder", str(folder), [], [], False), CancelToken()
    )
    query = build_query("公司规定出差住宿每晚多少钱")
    assert search_module.bounded_match(conn, "cjk", query) == query.cjk_match  # small library
    monkeypatch.setattr(search_module, "LARGE_LIBRARY_CHUNKS", 0)
    rows = vocab.frequencies(conn, "chunks_cjk", list(query.cjk_terms))
    present = sorted((t for t in query.cjk_terms if rows[t]), key=lambda t: (rows[t], t))
    assert rows["公司"] == rows["规定"] == 9 and rows["出差"] == 1
    monkeypatch.setattr(search_module, "MATCH_BUDGET", 5)
    bounded = search_module.bounded_match(conn, "cjk", query)
    assert bounded is not None
    kept = [t.strip('"') for t in bounded.split(" OR ")]
    assert kept == [t for t in present if rows[t] == 1]  # the rare terms, rarest first
    assert "公司" not in kept and "规定" not in kept  # the common ones left to the rescoring
    hits = search(conn, "cjk", [library_id], query, 5)
    first = conn.execute("SELECT content FROM chunks WHERE id = ?", (hits[0].chunk_id,)).fetchone()
    assert "六百元" in first[0]
    monkeypatch.setattr(search_module, "MATCH_BUDGET", 0)  # at least the rarest term
    assert search_module.bounded_match(conn, "cjk", query) == f'"{present[0]}"'


def test_an_english_phrase_is_counted_in_words_not_across_them() -> None:
    """The phrase feature the relevance reads (``rerank.features``) counts a question in Latin
    letters in words, worth its content words: counted in characters across spaces, "code for
    the" ("codeforthe") was worth 0.83 of a phrase for "what is the dress code for the annual
    gala", more than "dress code" itself, and "annual" inside "biannual" half of one."""
    query = build_query("What is the dress code for the annual gala?")
    texts = {
        "door": ("The team code for the kitchen is posted on the door.", 4 / 12),  # "code"
        "gala": ("Dress code: smart casual at the annual gala dinner.", 10 / 12),  # "annual gala"
        "review": ("The biannual review of the dress codes.", 9 / 12),  # "dress codes": stems
        "biannual": ("The biannual review looks at every team.", 0.0),
    }
    for name, (text, worth) in texts.items():
        candidate = Candidate("c", fused=1.0, content=text, document_title=name)
        assert rerank.features(candidate, query, 1.0)["phrase"] == pytest.approx(worth), name
    # a question with Chinese in it keeps the character count (年休假: three of its six)
    chinese = build_query("年休假有几天？")
    candidate = Candidate("c", fused=1.0, content="员工每年享有年休假五天。", document_title="假期")
    assert rerank.features(candidate, chinese, 1.0)["phrase"] == pytest.approx(3 / 6)
