"""Loopback HTTP servers that stand in for model providers (embedding, chat, extraction) in tests."""
