"""The platform's programs at the process boundary: "show in folder" uses the file manager
named by GOODBUDDY_REVEALER, else (on Linux, with no file manager answering over D-Bus) the
opener on the file's folder; with neither it says so with its code, and a missing opener says
which program was not found."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from goodbuddy_kb.contracts.errors import UnavailableError
from goodbuddy_kb.main_process.opener import (
    ENV_OPENER,
    ENV_REVEALER,
    open_with_platform,
    reveal_with_platform,
)


def recorder(folder: Path, name: str, log: Path) -> Path:
    folder.mkdir(exist_ok=True)
    script = folder / name
    script.write_text(
        f"#!{sys.executable}\nimport sys\nopen({str(log)!r}, 'a').write(sys.argv[1] + '\\n')\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def logged(log: Path) -> list[str]:
    import time

    for _ in range(100):
        if log.exists() and log.read_text():
            break
        time.sleep(0.05)
    return log.read_text().splitlines()


def test_show_in_folder_uses_the_named_file_manager(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "shown.log"
    monkeypatch.setenv(ENV_REVEALER, str(recorder(tmp_path / "bin", "fm", log)))
    target = tmp_path / "a.md"
    target.write_text("x", encoding="utf-8")
    reveal_with_platform(str(target))
    assert logged(log) == [str(target)]
    monkeypatch.setenv(ENV_REVEALER, str(tmp_path / "no-such-file-manager"))
    with pytest.raises(UnavailableError) as refused:
        reveal_with_platform(str(target))
    assert refused.value.message_code == "reference.no_file_manager"


@pytest.mark.skipif(sys.platform != "linux", reason="the Linux fallback")
def test_without_a_file_manager_linux_opens_the_folder_else_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "opened.log"
    monkeypatch.delenv(ENV_REVEALER, raising=False)
    monkeypatch.delenv(ENV_OPENER, raising=False)
    recorder(tmp_path / "bin", "xdg-open", log)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no gdbus, no dbus-send
    target = tmp_path / "docs" / "a.md"
    target.parent.mkdir()
    target.write_text("x", encoding="utf-8")
    reveal_with_platform(str(target))
    assert logged(log) == [str(target.parent)]
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(UnavailableError) as refused:
        reveal_with_platform(str(target))
    assert refused.value.message_code == "reference.no_file_manager"
    with pytest.raises(UnavailableError) as no_opener:
        open_with_platform(str(target))
    assert no_opener.value.message_code == "reference.no_opener"
    assert no_opener.value.message_params == {"program": "xdg-open"}


def test_an_opener_that_fails_is_an_error_not_an_opened_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``xdg-open`` with no program for a file's type exits 3 or 4: that was "Opened the
    source" (found trying the app under Xvfb). The opener's answer is now waited for."""
    target = tmp_path / "a.md"
    target.write_text("x", encoding="utf-8")
    failing = tmp_path / "failing-opener"
    failing.write_text(f"#!{sys.executable}\nimport sys\nsys.exit(4)\n", encoding="utf-8")
    failing.chmod(failing.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(ENV_OPENER, str(failing))
    with pytest.raises(UnavailableError) as refused:
        open_with_platform(str(target))
    assert refused.value.message_code == "reference.opener_failed"
    assert refused.value.message_params == {"program": "failing-opener", "exit_code": "4"}
    monkeypatch.setenv(ENV_REVEALER, str(failing))
    with pytest.raises(UnavailableError) as not_shown:
        reveal_with_platform(str(target))
    assert not_shown.value.message_code == "reference.reveal_failed"
    assert "could not show it in its folder (exit status 4)" in not_shown.value.message


def test_an_opener_still_running_is_taken_to_show_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Some openers stay until their window closes: after a few seconds without an answer the
    file is taken to be open, and nothing waits on the program any longer."""
    import time

    from goodbuddy_kb.main_process.opener import OPEN_CHECK_S

    log = tmp_path / "opened.log"
    staying = tmp_path / "staying-opener"
    staying.write_text(
        f"#!{sys.executable}\nimport sys, time\nopen({str(log)!r}, 'a').write(sys.argv[1])\n"
        "time.sleep(30)\n",
        encoding="utf-8",
    )
    staying.chmod(staying.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(ENV_OPENER, str(staying))
    target = tmp_path / "a.md"
    target.write_text("x", encoding="utf-8")
    began = time.monotonic()
    open_with_platform(str(target))
    assert time.monotonic() - began < OPEN_CHECK_S + 1.0
    assert logged(log) == [str(target)]
