"""The retrieval workbench: ask a question, see each channel's ranking and the fused result."""
