"""Contracts of the `system:*` methods and of the first run's sample library."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.library import Library


class PingRequest(ContractModel):
    pass


class PingResponse(ContractModel):
    version: str = Field(max_length=40)
    api_version: int = Field(ge=1)
    pid: int = Field(ge=0)


class AboutRequest(ContractModel):
    pass


class ModelNotice(ContractModel):
    """A model that ships inside the application: what it is, its licence, where it comes from."""

    name: str = Field(max_length=200)
    licence: str = Field(max_length=100)
    home_page: str = Field(max_length=300)
    provided_by: str = Field(max_length=100)


class PackageNotice(ContractModel):
    """An installed runtime dependency: its version, licence and home page."""

    name: str = Field(max_length=200)
    version: str = Field(max_length=100)
    licence: str = Field(max_length=300)
    home_page: str = Field(max_length=300)


class AboutInfo(ContractModel):
    """Help → About and `goodbuddy-kb notices`: this build's version, the data directory the
    backend serves, the bundled models and every runtime dependency's licence, plus the same
    notices as one plain text (what `goodbuddy-kb notices` prints)."""

    version: str = Field(max_length=40)
    data_dir: str = Field(max_length=4096)
    models: list[ModelNotice]
    packages: list[PackageNotice]
    notices: str = Field(max_length=200_000)


class SampleLibraryRequest(ContractModel):
    """Make the sample library: its documents are copied from the package into the data
    directory, a library named in ``language`` is created over that copy and synced."""

    language: Literal["zh", "en"]


class SampleLibraryResponse(ContractModel):
    library: Library
    #: The sync of the copied folder (its vectors and local graph follow it).
    task_id: str | None
    #: Where the copy is (inside the data directory).
    folder: str = Field(max_length=4096)
    #: Questions to try, Chinese first then English; each is answered by a sample document.
    questions: list[str]
