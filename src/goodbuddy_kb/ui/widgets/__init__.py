"""Widgets and helpers two or more areas use: table model, switch, eliding label, button helper,
pager, "latest request wins" ticket, confirmation box, reference view and theme."""
