"""Settings: the connections (embedding, chat, rerank), external AI tools and diagnostics."""
