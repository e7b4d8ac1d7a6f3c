"""Vector indexes: fingerprinted versions on disk, the paged scanner, vectorisation."""

from __future__ import annotations
