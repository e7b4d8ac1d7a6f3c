"""The Documents tab: sources and documents, their row actions, the bar and rebuild actions."""
