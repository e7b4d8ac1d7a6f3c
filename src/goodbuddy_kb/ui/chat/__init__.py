"""The chat: conversations, the scope popover, answers with their citations and the reference view."""
