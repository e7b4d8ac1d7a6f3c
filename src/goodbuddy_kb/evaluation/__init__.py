"""`goodbuddy-kb eval retrieval`: retrieval quality as numbers that cannot silently regress."""

from __future__ import annotations
