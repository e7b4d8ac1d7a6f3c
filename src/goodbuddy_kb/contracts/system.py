"""Contracts of the `system:*` methods."""

from __future__ import annotations

from pydantic import Field

from goodbuddy_kb.contracts.base import ContractModel


class PingRequest(ContractModel):
    pass


class PingResponse(ContractModel):
    version: str = Field(max_length=40)
    api_version: int = Field(ge=1)
    pid: int = Field(ge=0)
